  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  struct { double dist; int index; } local{INFINITY, 0}, global{};
  for (size_t i = n * rank / size; i < n * (rank + 1) / size; ++i) {
    const double dist = std::fabs(x[i] - M_PI);
    if (dist < local.dist) {
      local.dist = dist;
      local.index = static_cast<int>(i);
    }
  }
  // MINLOC keeps the smaller index on ties.
  MPI_Reduce(&local, &global, 1, MPI_DOUBLE_INT, MPI_MINLOC, 0, MPI_COMM_WORLD);
  return static_cast<size_t>(global.index);
}
