  const size_t rows = y.size();
  // Row lengths vary a lot: hand out rows in small dynamic chunks.
  #pragma omp parallel for schedule(dynamic, 256)
  for (size_t i = 0; i < rows; ++i) {
    double sum = 0.0;
    for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
    y[i] = alpha * sum + beta * y[i];
  }
}
