  // Each rank counts the true values of its slice with its threads; the slice parities are combined with a
  // bitwise XOR on every rank.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  size_t count = 0;
  #pragma omp parallel for reduction(+ : count) schedule(static)
  for (size_t i = begin; i < end; ++i) count += x[i];
  int local = (int)(count & 1), total = 0;
  MPI_Allreduce(&local, &total, 1, MPI_INT, MPI_BXOR, MPI_COMM_WORLD);
  return total != 0;
}
