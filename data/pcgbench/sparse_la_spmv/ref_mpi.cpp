  // Blocks of rows; a rank finds its rows' elements by binary search (A is sorted by row). Rank 0 gathers y.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(M * r / size);
    counts[r] = static_cast<int>(M * (r + 1) / size) - displs[r];
  }
  const size_t first = displs[rank], last = first + counts[rank];
  auto by_row = [](const COOElement& e, size_t row) { return e.row < row; };
  size_t k = std::lower_bound(A.begin(), A.end(), first, by_row) - A.begin();
  const size_t end = std::lower_bound(A.begin(), A.end(), last, by_row) - A.begin();
  for (size_t i = first; i < last; ++i) y[i] *= beta;
  while (k < end) {
    const size_t row = A[k].row;
    double sum = 0.0;
    for (; k < end && A[k].row == row; ++k) sum += A[k].value * x[A[k].column];
    y[row] += alpha * sum;
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, y.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(y.data() + displs[rank], counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  (void)N;
}
