  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  double local = 1.0;
  for (size_t i = begin; i < end; ++i) local = local * ((i & 1) ? 1.0 / x[i] : x[i]);
  double total = 1.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
  return total;
}
