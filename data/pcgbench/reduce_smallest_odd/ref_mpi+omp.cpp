  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  int local = INT_MAX;
  #pragma omp parallel for reduction(min : local)
  for (size_t i = begin; i < end; ++i) local = (((x[i] & 1) != 0 ? x[i] : INT_MAX) < local ? ((x[i] & 1) != 0 ? x[i] : INT_MAX) : local);
  int total = INT_MAX;
  MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return total;
}
