  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int local[2] = {0, 0}, total[2] = {0, 0};
  for (size_t i = x.size() * rank / size; i < x.size() * (rank + 1) / size; ++i) local[0] |= (x[i] == val);
  for (size_t i = y.size() * rank / size; i < y.size() * (rank + 1) / size; ++i) local[1] |= (y[i] == val);
  MPI_Reduce(local, total, 2, MPI_INT, MPI_LOR, 0, MPI_COMM_WORLD);
  return (total[0] != 0) != (total[1] != 0);
}
