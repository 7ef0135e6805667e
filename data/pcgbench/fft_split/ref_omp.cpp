  const size_t n = x.size();
  const std::vector<std::complex<double>> &src = x;
  // Iterative radix-2 FFT: load in bit-reversed order, then log2(n) stages of butterflies. w holds the
  // n/2 twiddles of the full length; a stage of length len uses every (n/len)-th one.
  int bits = 0;
  while ((size_t(1) << bits) < n) ++bits;
  std::vector<std::complex<double>> w(n / 2 > 0 ? n / 2 : 1);
  #pragma omp parallel for
  for (size_t k = 0; k < n / 2; ++k) w[k] = std::polar(1.0, -1 * 2.0 * M_PI * (double)k / (double)n);
  std::vector<std::complex<double>> a(n);
  #pragma omp parallel for
  for (size_t j = 0; j < n; ++j) {
    size_t rev = 0;
    for (int b = 0; b < bits; ++b) rev |= ((j >> b) & 1) << (bits - 1 - b);
    a[rev] = src[j];
  }
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t half = len / 2, stride = n / len;
    #pragma omp parallel for
    for (size_t t = 0; t < n / 2; ++t) {
      const size_t start = (t / half) * len, k = t % half;
      const std::complex<double> u = a[start + k], v = a[start + k + half] * w[k * stride];
      a[start + k] = u + v;
      a[start + k + half] = u - v;
    }
  }
  #pragma omp parallel for
  for (size_t k = 0; k < n; ++k) {
    r[k] = a[k].real();
    i[k] = a[k].imag();
  }
}
