  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> local(N, 0.0);
  for (size_t i = M * rank / size; i < M * (rank + 1) / size; ++i) {
    const double xi = x[i];
    for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) local[col[k]] += val[k] * xi;
  }
  MPI_Reduce(local.data(), y.data(), static_cast<int>(N), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
}
