  for (size_t j = 0; j < N; ++j) y[j] = 0.0;
  for (size_t i = 0; i < M; ++i) {
    const double xi = x[i];
    for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) y[col[k]] += val[k] * xi;
  }
}
