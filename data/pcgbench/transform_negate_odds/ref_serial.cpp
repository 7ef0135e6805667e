  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) x[i] = ((x[i] & 1) != 0 ? -x[i] : x[i] / 2);
}
