  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) ++bins[(size_t)((x[i] - std::floor(x[i])) * 4.0)];
}
