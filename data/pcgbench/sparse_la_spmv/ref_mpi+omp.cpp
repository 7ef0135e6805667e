  // Blocks of rows per rank (found by binary search, A is sorted by row); within a rank, each thread takes an
  // equal share of the rank's elements moved to row boundaries. Rank 0 gathers y.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(M * r / size);
    counts[r] = static_cast<int>(M * (r + 1) / size) - displs[r];
  }
  const size_t first = displs[rank], last = first + counts[rank];
  auto by_row = [](const COOElement& e, size_t row) { return e.row < row; };
  const size_t begin = std::lower_bound(A.begin(), A.end(), first, by_row) - A.begin();
  const size_t end = std::lower_bound(A.begin(), A.end(), last, by_row) - A.begin();
  #pragma omp parallel for schedule(static)
  for (size_t i = first; i < last; ++i) y[i] *= beta;
  auto row_start = [&](size_t k) {
    while (k > begin && k < end && A[k].row == A[k - 1].row) ++k;
    return k;
  };
  #pragma omp parallel
  {
    const size_t t = omp_get_thread_num(), threads = omp_get_num_threads();
    size_t k = row_start(begin + (end - begin) * t / threads);
    const size_t stop = row_start(begin + (end - begin) * (t + 1) / threads);
    while (k < stop) {
      const size_t row = A[k].row;
      double sum = 0.0;
      for (; k < stop && A[k].row == row; ++k) sum += A[k].value * x[A[k].column];
      y[row] += alpha * sum;
    }
  }
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, y.data(), counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(y.data() + displs[rank], counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  (void)N;
}
