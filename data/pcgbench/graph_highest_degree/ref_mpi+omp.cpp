  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int best = 0;
  #pragma omp parallel for reduction(max : best)
  for (size_t i = N * rank / size; i < N * (rank + 1) / size; ++i) {
    int degree = 0;
    for (size_t j = 0; j < N; ++j) degree += A[i * N + j];
    if (degree > best) best = degree;
  }
  int global = 0;
  MPI_Reduce(&best, &global, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
  return global;
}
