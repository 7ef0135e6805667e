  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = points.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  long long local = 0;
  for (size_t i = begin; i < end; ++i) local = local + ((points[i].x - cx) * (points[i].x - cx) + (points[i].y - cy) * (points[i].y - cy) <= r * r ? 1LL : 0LL);
  long long total = 0;
  MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  return total;
}
