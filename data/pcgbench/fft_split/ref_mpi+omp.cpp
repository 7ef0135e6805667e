  // Decimation in time across ranks: P = the largest power of two <= min(ranks, n). Rank q < P transforms
  // the subsequence x[q], x[q+P], x[q+2P], ... (length m = n/P); rank 0 gathers the P sub-transforms and
  // combines them: X[k] = sum over q of exp(-2 pi sqrt(-1) q k / n) * Y_q[k mod m].
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const size_t n = x.size();
  size_t P = 1;
  while (P * 2 <= (size_t)size && P * 2 <= n) P *= 2;
  const size_t m = n / P;
  int bits = 0;
  while ((size_t(1) << bits) < m) ++bits;
  std::vector<std::complex<double>> w(n);
  #pragma omp parallel for
  for (size_t k = 0; k < n; ++k) w[k] = std::polar(1.0, -1 * 2.0 * M_PI * (double)k / (double)n);
  std::vector<std::complex<double>> a((size_t)rank < P ? m : 0);
  if ((size_t)rank < P) {
    #pragma omp parallel for
    for (size_t j = 0; j < m; ++j) {
      size_t rev = 0;
      for (int b = 0; b < bits; ++b) rev |= ((j >> b) & 1) << (bits - 1 - b);
      a[rev] = x[rank + j * P];
    }
    for (size_t len = 2; len <= m; len <<= 1) {
      const size_t half = len / 2, stride = n / len;  // exp(s 2 pi i k / len) = w[k * n / len]
      #pragma omp parallel for
      for (size_t t = 0; t < m / 2; ++t) {
        const size_t start = (t / half) * len, k = t % half;
        const std::complex<double> u = a[start + k], v = a[start + k + half] * w[k * stride];
        a[start + k] = u + v;
        a[start + k + half] = u - v;
      }
    }
  }
  std::vector<int> counts(size, 0), displs(size, 0);
  for (size_t q = 0; q < P; ++q) {
    counts[q] = (int)(2 * m);
    displs[q] = (int)(2 * m * q);
  }
  std::vector<std::complex<double>> subs(rank == 0 ? n : 0);
  MPI_Gatherv(reinterpret_cast<double *>(a.data()), counts[rank], MPI_DOUBLE, reinterpret_cast<double *>(subs.data()),
              counts.data(), displs.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (rank != 0) return;
  #pragma omp parallel for
  for (size_t k = 0; k < n; ++k) {
    std::complex<double> sum = 0.0;
    for (size_t q = 0; q < P; ++q) sum += w[(q * k) % n] * subs[q * m + k % m];
    r[k] = sum.real();
    i[k] = sum.imag();
  }
}
