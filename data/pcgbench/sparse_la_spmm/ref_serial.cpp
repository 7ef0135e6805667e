  // Row starts of X (sorted by row), then every element A(i, k) adds a times row k of X to row i of Y.
  std::vector<size_t> xptr(K + 1, 0);
  for (const COOElement& e : X) ++xptr[e.row + 1];
  for (size_t k = 0; k < K; ++k) xptr[k + 1] += xptr[k];
  for (const COOElement& a : A) {
    double* yrow = &Y[a.row * N];
    for (size_t p = xptr[a.column]; p < xptr[a.column + 1]; ++p) yrow[X[p].column] += a.value * X[p].value;
  }
  (void)M;
}
