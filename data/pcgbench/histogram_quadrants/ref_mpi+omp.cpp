  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = points.size();
  unsigned long long local[4] = {}, total[4] = {};
  #pragma omp parallel
  {
    unsigned long long mine[4] = {};
    #pragma omp for nowait
    for (size_t i = n * rank / size; i < n * (rank + 1) / size; ++i) ++mine[(points[i].x >= 0 ? (points[i].y >= 0 ? 0 : 3) : (points[i].y >= 0 ? 1 : 2))];
    #pragma omp critical
    for (int k = 0; k < 4; ++k) local[k] += mine[k];
  }
  MPI_Reduce(local, total, 4, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int k = 0; k < 4; ++k) bins[k] = total[k];
}
