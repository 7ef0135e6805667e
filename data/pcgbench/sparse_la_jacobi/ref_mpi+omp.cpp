  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = b.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(n * r / size);
    counts[r] = static_cast<int>(n * (r + 1) / size) - displs[r];
  }
  std::vector<double> mine(counts[rank]);
  for (int it = 0; it < iterations; ++it) {
    #pragma omp parallel for schedule(static)
    for (int t = 0; t < counts[rank]; ++t) {
      const size_t i = displs[rank] + t;
      double sum = b[i], diag = 1.0;
      for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        if (col[k] == i) diag = val[k];
        else sum -= val[k] * x[col[k]];
      }
      mine[t] = sum / diag;
    }
    MPI_Allgatherv(mine.data(), counts[rank], MPI_DOUBLE, x.data(), counts.data(), displs.data(), MPI_DOUBLE,
                   MPI_COMM_WORLD);
  }
}
