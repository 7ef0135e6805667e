  const size_t n = b.size();
  std::vector<double> next(n);
  for (int it = 0; it < iterations; ++it) {
    for (size_t i = 0; i < n; ++i) {
      double sum = b[i], diag = 1.0;
      for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        if (col[k] == i) diag = val[k];
        else sum -= val[k] * x[col[k]];
      }
      next[i] = sum / diag;
    }
    x.swap(next);
  }
}
