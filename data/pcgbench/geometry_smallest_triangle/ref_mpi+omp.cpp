  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long n = static_cast<long>(points.size());
  double best = 1e300;
  #pragma omp parallel for schedule(dynamic, 1) reduction(min : best)
  for (long i = rank; i < n; i += size)
    for (long j = i + 1; j < n; ++j) {
      const double bx = points[j].x - points[i].x, by = points[j].y - points[i].y;
      for (long k = j + 1; k < n; ++k) {
        const double cross = bx * (points[k].y - points[i].y) - (points[k].x - points[i].x) * by;
        const double twice = cross < 0 ? -cross : cross;
        if (twice < best) best = twice;
      }
    }
  double global = 0.0;
  MPI_Reduce(&best, &global, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  return global / 2.0;
}
