  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = points.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  double local = 0.0;
  #pragma omp parallel for reduction(+ : local)
  for (size_t i = begin; i < end; ++i) local = local + (points[i].x * points[(i + 1) % n].y - points[(i + 1) % n].x * points[i].y);
  double total = 0.0;
  MPI_Reduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  return 0.5 * std::fabs(total);
}
