  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t nnz = idx.size();
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(nnz * r / size);
    counts[r] = static_cast<int>(nnz * (r + 1) / size) - displs[r];
  }
  std::vector<double> scaled(counts[rank]);
  #pragma omp parallel for
  for (int k = 0; k < counts[rank]; ++k) scaled[k] = alpha * vals[displs[rank] + k];
  std::vector<double> all(rank == 0 ? nnz : 0);
  MPI_Gatherv(scaled.data(), counts[rank], MPI_DOUBLE, all.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
              MPI_COMM_WORLD);
  if (rank == 0) {
    #pragma omp parallel for
    for (size_t k = 0; k < nnz; ++k) y[idx[k]] += all[k];
  }
}
