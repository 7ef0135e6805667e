  // Blocks of rows of Y per rank (A's elements found by binary search, A is sorted by row); rank 0 gathers Y.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<size_t> xptr(K + 1, 0);
  for (const COOElement& e : X) ++xptr[e.row + 1];
  for (size_t k = 0; k < K; ++k) xptr[k + 1] += xptr[k];
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>((M * r / size) * N);
    counts[r] = static_cast<int>((M * (r + 1) / size) * N) - displs[r];
  }
  auto by_row = [](const COOElement& e, size_t row) { return e.row < row; };
  const size_t begin = std::lower_bound(A.begin(), A.end(), M * rank / size, by_row) - A.begin();
  const size_t end = std::lower_bound(A.begin(), A.end(), M * (rank + 1) / size, by_row) - A.begin();
  for (size_t q = begin; q < end; ++q) {
    const COOElement& a = A[q];
    double* yrow = &Y[a.row * N];
    for (size_t p = xptr[a.column]; p < xptr[a.column + 1]; ++p) yrow[X[p].column] += a.value * X[p].value;
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, Y.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(Y.data() + displs[rank], counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
