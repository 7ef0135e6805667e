  double running = 0.0;
  const std::size_t n = x.size();
  for (std::size_t i = 0; i < n; ++i) {
    running += x[i];
    output[i] = running;
  }
}
