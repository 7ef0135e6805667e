  const size_t n = x.size();
  std::vector<double> wr(n), wi(n);
  const double step = -2.0 * M_PI / static_cast<double>(n);
  #pragma omp parallel for
  for (size_t m = 0; m < n; ++m) {
    wr[m] = std::cos(step * m);
    wi[m] = std::sin(step * m);
  }
  #pragma omp parallel for schedule(static)
  for (size_t k = 0; k < n; ++k) {
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
}
