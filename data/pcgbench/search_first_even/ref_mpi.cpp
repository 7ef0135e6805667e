  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::size_t n = x.size();
  const std::size_t begin = n * rank / size, end = n * (rank + 1) / size;
  unsigned long long local = n;
  for (std::size_t i = begin; i < end; ++i)
    if ((x[i] & 1) == 0) { local = i; break; }
  unsigned long long first = n;
  MPI_Reduce(&local, &first, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, 0, MPI_COMM_WORLD);
  return static_cast<size_t>(first);
}
