  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  double local = 0.0;
  #pragma omp parallel for reduction(+ : local)
  for (size_t i = begin; i < end; ++i) local = local + (x[i] < y[i] ? x[i] : y[i]);
  double total = 0.0;
  MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return total;
}
