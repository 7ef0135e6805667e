  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  std::vector<double> wr(n), wi(n);
  const double step = -2.0 * M_PI / static_cast<double>(n);
  #pragma omp parallel for
  for (size_t m = 0; m < n; ++m) {
    wr[m] = std::cos(step * m);
    wi[m] = std::sin(step * m);
  }
  std::vector<int> counts(size), displs(size);
  for (int r = 0; r < size; ++r) {
    displs[r] = static_cast<int>(2 * (n * r / size));
    counts[r] = static_cast<int>(2 * (n * (r + 1) / size)) - displs[r];
  }
  #pragma omp parallel for schedule(static)
  for (size_t k = n * rank / size; k < n * (rank + 1) / size; ++k) {
    double re = 0.0, im = 0.0;
    size_t m = 0;
    for (size_t j = 0; j < n; ++j) {
      re += x[j] * wr[m];
      im += x[j] * wi[m];
      m += k;
      if (m >= n) m -= n;
    }
    output[k] = std::complex<double>(re, im);
  }
  double *flat = reinterpret_cast<double *>(output.data());
  if (rank == 0)
    MPI_Gatherv(MPI_IN_PLACE, counts[0], MPI_DOUBLE, flat, counts.data(), displs.data(), MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
  else
    MPI_Gatherv(flat + displs[rank], counts[rank], MPI_DOUBLE, nullptr, nullptr, nullptr, MPI_DOUBLE, 0,
                MPI_COMM_WORLD);
}
