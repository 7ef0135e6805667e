  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) {
      const int live = (i >= 1 && j >= 1 ? input[(i - 1) * N + (j - 1)] : 0) + (i >= 1 ? input[(i - 1) * N + j] : 0) + (i >= 1 && j + 1 < N ? input[(i - 1) * N + (j + 1)] : 0) + (j >= 1 ? input[i * N + (j - 1)] : 0) + (j + 1 < N ? input[i * N + (j + 1)] : 0) + (i + 1 < N && j >= 1 ? input[(i + 1) * N + (j - 1)] : 0) + (i + 1 < N ? input[(i + 1) * N + j] : 0) + (i + 1 < N && j + 1 < N ? input[(i + 1) * N + (j + 1)] : 0);
      output[i * N + j] = (live == 3 || (live == 2 && input[i * N + j] == 1)) ? 1 : 0;
    }
}
