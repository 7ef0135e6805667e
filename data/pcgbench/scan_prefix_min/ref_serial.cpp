  float low = std::numeric_limits<float>::infinity();
  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) {
    low = x[i] < low ? x[i] : low;
    x[i] = low;
  }
}
