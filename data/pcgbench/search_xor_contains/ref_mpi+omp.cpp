  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int in_x = 0, in_y = 0;
  #pragma omp parallel for reduction(| : in_x)
  for (size_t i = x.size() * rank / size; i < x.size() * (rank + 1) / size; ++i) in_x |= (x[i] == val);
  #pragma omp parallel for reduction(| : in_y)
  for (size_t i = y.size() * rank / size; i < y.size() * (rank + 1) / size; ++i) in_y |= (y[i] == val);
  int local[2] = {in_x, in_y}, total[2] = {0, 0};
  MPI_Reduce(local, total, 2, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
  return (total[0] != 0) != (total[1] != 0);
}
