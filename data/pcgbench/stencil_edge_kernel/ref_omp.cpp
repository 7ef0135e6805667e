  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) {
      const int sum = 8 * input[i * N + j] - ((i >= 1 && j >= 1 ? input[(i - 1) * N + (j - 1)] : 0) + (i >= 1 ? input[(i - 1) * N + j] : 0) + (i >= 1 && j + 1 < N ? input[(i - 1) * N + (j + 1)] : 0) + (j >= 1 ? input[i * N + (j - 1)] : 0) + (j + 1 < N ? input[i * N + (j + 1)] : 0) + (i + 1 < N && j >= 1 ? input[(i + 1) * N + (j - 1)] : 0) + (i + 1 < N ? input[(i + 1) * N + j] : 0) + (i + 1 < N && j + 1 < N ? input[(i + 1) * N + (j + 1)] : 0));
      output[i * N + j] = sum < 0 ? 0 : (sum > 255 ? 255 : sum);
    }
}
