  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t rows = y.size();
  // Split rows so that every rank gets about the same number of nonzeros, not the same number of rows.
  std::vector<int> counts(size), displs(size);
  const size_t nnz = row_ptr[rows];
  size_t row = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(row);
    const size_t target = nnz * (r + 1) / size;
    while (row < rows && (r == size - 1 || row_ptr[row + 1] <= target)) ++row;
    counts[r] = static_cast<int>(row) - displs[r];
  }
  for (size_t i = displs[rank]; i < static_cast<size_t>(displs[rank] + counts[rank]); ++i) {
    double sum = 0.0;
    for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
    y[i] = alpha * sum + beta * y[i];
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, y.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(y.data() + displs[rank], counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
