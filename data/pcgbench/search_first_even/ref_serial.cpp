  const std::size_t n = x.size();
  for (std::size_t i = 0; i < n; ++i)
    if ((x[i] & 1) == 0) return i;
  return n;
}
