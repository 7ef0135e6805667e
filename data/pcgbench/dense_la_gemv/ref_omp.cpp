  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < M; ++i) {
    const double *row = A.data() + i * N;
    double sum = 0.0;
    for (size_t j = 0; j < N; ++j) sum += row[j] * x[j];
    y[i] = sum;
  }
}
