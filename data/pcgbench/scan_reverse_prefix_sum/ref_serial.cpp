  const size_t n = x.size();
  int running = 0;
  for (size_t k = 0; k < n; ++k) {
    running += x[n - 1 - k];
    output[k] = running;
  }
}
