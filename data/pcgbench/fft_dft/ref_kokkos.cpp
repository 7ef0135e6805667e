  const size_t n = x.extent(0);
  Kokkos::View<double*> wr("wr", n), wi("wi", n);
  const double step = -2.0 * M_PI / static_cast<double>(n);
  Kokkos::parallel_for("twiddles", n, KOKKOS_LAMBDA(const size_t m) {
    wr(m) = Kokkos::Experimental::cos(step * m);
    wi(m) = Kokkos::Experimental::sin(step * m);
  });
  Kokkos::parallel_for("dft", n, KOKKOS_LAMBDA(const size_t k) {
    double re = 0.0, im = 0.0;
    size_t m = 0;
    for (size_t j = 0; j < n; ++j) {
      re += x(j) * wr(m);
      im += x(j) * wi(m);
      m += k;
      if (m >= n) m -= n;
    }
    output(k) = Kokkos::complex<double>(re, im);
  });
  Kokkos::fence();
}
