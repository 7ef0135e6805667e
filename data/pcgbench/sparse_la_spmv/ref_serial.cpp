  const size_t rows = y.size();
  for (size_t i = 0; i < rows; ++i) {
    double sum = 0.0;
    for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
    y[i] = alpha * sum + beta * y[i];
  }
}
