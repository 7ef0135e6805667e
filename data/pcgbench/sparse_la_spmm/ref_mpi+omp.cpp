  // Blocks of rows of Y per rank (A's elements found by binary search, A is sorted by row); within a rank each
  // thread takes an equal share of the rank's elements moved to row boundaries. Rank 0 gathers Y.
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
  const size_t first = std::lower_bound(A.begin(), A.end(), M * rank / size, by_row) - A.begin();
  const size_t last = std::lower_bound(A.begin(), A.end(), M * (rank + 1) / size, by_row) - A.begin();
  auto row_start = [&](size_t p) {
    while (p > first && p < last && A[p].row == A[p - 1].row) ++p;
    return p;
  };
  #pragma omp parallel
  {
    const size_t t = omp_get_thread_num(), threads = omp_get_num_threads();
    const size_t begin = row_start(first + (last - first) * t / threads);
    const size_t end = row_start(first + (last - first) * (t + 1) / threads);
    for (size_t q = begin; q < end; ++q) {
      const COOElement& a = A[q];
      double* yrow = &Y[a.row * N];
      for (size_t p = xptr[a.column]; p < xptr[a.column + 1]; ++p) yrow[X[p].column] += a.value * X[p].value;
    }
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, Y.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(Y.data() + displs[rank], counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
