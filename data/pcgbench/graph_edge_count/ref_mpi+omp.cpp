  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int local = 0;
  #pragma omp parallel for reduction(+ : local) schedule(static)
  for (size_t k = N * N * rank / size; k < N * N * (rank + 1) / size; ++k) local += A[k];
  int count = 0;
  MPI_Reduce(&local, &count, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
  return count;
}
