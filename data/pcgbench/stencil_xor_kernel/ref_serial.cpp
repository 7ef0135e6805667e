  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) {
      output[i * N + j] = ((i >= 1 ? input[(i - 1) * N + j] : 0) + (i + 1 < N ? input[(i + 1) * N + j] : 0) + (j >= 1 ? input[i * N + (j - 1)] : 0) + (j + 1 < N ? input[i * N + (j + 1)] : 0)) == 1 ? 1 : 0;
    }
}
