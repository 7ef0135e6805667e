  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < N; ++j) {
      double sum = input[i * N + j];
      if (i > 0) sum += input[(i - 1) * N + j];
      if (i + 1 < N) sum += input[(i + 1) * N + j];
      if (j > 0) sum += input[i * N + j - 1];
      if (j + 1 < N) sum += input[i * N + j + 1];
      output[i * N + j] = sum / 5.0;
    }
}
