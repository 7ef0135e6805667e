  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t rows = y.size();
  std::vector<int> counts(size), displs(size);
  const size_t nnz = row_ptr[rows];
  size_t row = 0;
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(row);
    const size_t target = nnz * (r + 1) / size;
    while (row < rows && (r == size - 1 || row_ptr[row + 1] <= target)) ++row;
    counts[r] = static_cast<int>(row) - displs[r];
  }
  const long begin = displs[rank], end = begin + counts[rank];
  #pragma omp parallel for schedule(dynamic, 256)
  for (long i = begin; i < end; ++i) {
    double sum = 0.0;
    for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
    y[i] = alpha * sum + beta * y[i];
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, y.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(y.data() + begin, counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
