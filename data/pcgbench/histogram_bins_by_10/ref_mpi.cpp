  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  unsigned long long local[10] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, total[10];
  for (size_t i = begin; i < end; ++i) ++local[static_cast<size_t>(x[i] / 10.0)];
  MPI_Reduce(local, total, 10, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int k = 0; k < 10; ++k) bins[k] = total[k];
}
