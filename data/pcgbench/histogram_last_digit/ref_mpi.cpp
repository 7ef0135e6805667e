  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  unsigned long long local[10] = {}, total[10] = {};
  for (size_t i = n * rank / size; i < n * (rank + 1) / size; ++i) ++local[x[i] % 10];
  MPI_Reduce(local, total, 10, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int k = 0; k < 10; ++k) bins[k] = total[k];
}
