  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = points.size();
  double best = 1e300;
  // Cyclic distribution of i balances the shrinking inner loops.
  for (size_t i = rank; i < n; i += size)
    for (size_t j = i + 1; j < n; ++j) {
      const double bx = points[j].x - points[i].x, by = points[j].y - points[i].y;
      for (size_t k = j + 1; k < n; ++k) {
        const double cross = bx * (points[k].y - points[i].y) - (points[k].x - points[i].x) * by;
        const double twice = cross < 0 ? -cross : cross;
        if (twice < best) best = twice;
      }
    }
  double global = 0.0;
  MPI_Reduce(&best, &global, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
  return global / 2.0;
}
