  const size_t n = x.extent(0);
  int bits = 0;
  while ((size_t(1) << bits) < n) ++bits;
  Kokkos::View<Kokkos::complex<double>*> w("w", n / 2 > 0 ? n / 2 : 1), a("a", n);
  Kokkos::parallel_for("twiddles", n / 2, KOKKOS_LAMBDA(const size_t k) {
    const double angle = -1 * 2.0 * M_PI * (double)k / (double)n;
    w(k) = Kokkos::complex<double>(Kokkos::Experimental::cos(angle), Kokkos::Experimental::sin(angle));
  });
  Kokkos::parallel_for("bit_reverse", n, KOKKOS_LAMBDA(const size_t j) {
    size_t rev = 0;
    for (int b = 0; b < bits; ++b) rev |= ((j >> b) & 1) << (bits - 1 - b);
    a(rev) = x(j);
  });
  for (size_t len = 2; len <= n; len <<= 1) {
    const size_t half = len / 2, stride = n / len;
    Kokkos::parallel_for("stage", n / 2, KOKKOS_LAMBDA(const size_t t) {
      const size_t start = (t / half) * len, k = t % half;
      const Kokkos::complex<double> u = a(start + k), v = a(start + k + half) * w(k * stride);
      a(start + k) = u + v;
      a(start + k + half) = u - v;
    });
  }
  Kokkos::parallel_for("store", n, KOKKOS_LAMBDA(const size_t k) {
    r(k) = a(k).real();
    i(k) = a(k).imag();
  });
  Kokkos::fence();
}
