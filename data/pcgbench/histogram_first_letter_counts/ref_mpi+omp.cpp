  // Ranks split the words into blocks, threads split a rank's block; counts are summed on rank 0.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = s.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  unsigned long long local[26] = {}, total[26] = {};
  #pragma omp parallel
  {
    unsigned long long mine[26] = {};
    #pragma omp for nowait
    for (size_t i = begin; i < end; ++i) ++mine[s[i][0] - 'a'];
    #pragma omp critical
    for (int k = 0; k < 26; ++k) local[k] += mine[k];
  }
  MPI_Reduce(local, total, 26, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int k = 0; k < 26; ++k) bins[k] = total[k];
}
