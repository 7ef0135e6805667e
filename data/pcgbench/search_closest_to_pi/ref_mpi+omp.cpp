  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  struct { double dist; int index; } local{INFINITY, 0}, global{};
  #pragma omp parallel
  {
    double my_dist = INFINITY;
    int mine = 0;
    #pragma omp for nowait schedule(static)
    for (size_t i = n * rank / size; i < n * (rank + 1) / size; ++i) {
      const double dist = std::fabs(x[i] - M_PI);
      if (dist < my_dist) {
        my_dist = dist;
        mine = static_cast<int>(i);
      }
    }
    #pragma omp critical
    if (my_dist < local.dist || (my_dist == local.dist && mine < local.index)) {
      local.dist = my_dist;
      local.index = mine;
    }
  }
  MPI_Reduce(&local, &global, 1, MPI_DOUBLE_INT, MPI_MINLOC, 0, MPI_COMM_WORLD);
  return static_cast<size_t>(global.index);
}
