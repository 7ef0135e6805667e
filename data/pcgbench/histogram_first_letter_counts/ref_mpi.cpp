  // Each rank counts its block of words; the counts are summed on rank 0.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = s.size();
  unsigned long long local[26] = {}, total[26] = {};
  for (size_t i = n * rank / size; i < n * (rank + 1) / size; ++i) ++local[s[i][0] - 'a'];
  MPI_Reduce(local, total, 26, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int k = 0; k < 26; ++k) bins[k] = total[k];
}
