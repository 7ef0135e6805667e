  // std::norm (re^2 + im^2) orders like the magnitude and needs no square root.
  std::sort(x.begin(), x.end(), [](const std::complex<double>& a, const std::complex<double>& b) {
    return std::norm(a) < std::norm(b);
  });
}
