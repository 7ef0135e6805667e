  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = books.size();
  const size_t begin = n * rank / size, end = n * (rank + 1) / size;
  long long local = -1LL;
  #pragma omp parallel for reduction(max : local)
  for (size_t i = begin; i < end; ++i) local = ((books[i].pages < 100 ? (long long)i : -1LL) > local ? (books[i].pages < 100 ? (long long)i : -1LL) : local);
  long long total = -1LL;
  MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  return total < 0 ? n : static_cast<size_t>(total);
}
