  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) ++bins[x[i] % 10];
}
