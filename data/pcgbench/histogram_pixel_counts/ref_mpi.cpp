  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = image.size();
  std::vector<unsigned long long> local(256, 0), total(256, 0);
  for (size_t i = n * rank / size; i < n * (rank + 1) / size; ++i) ++local[image[i]];
  MPI_Reduce(local.data(), total.data(), 256, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int v = 0; v < 256; ++v) bins[v] = total[v];
}
