  // A is sorted by row: sum each row's run of elements, then update that row of y once.
  for (size_t i = 0; i < M; ++i) y[i] *= beta;
  const size_t nnz = A.size();
  size_t k = 0;
  while (k < nnz) {
    const size_t row = A[k].row;
    double sum = 0.0;
    for (; k < nnz && A[k].row == row; ++k) sum += A[k].value * x[A[k].column];
    y[row] += alpha * sum;
  }
  (void)N;
}
