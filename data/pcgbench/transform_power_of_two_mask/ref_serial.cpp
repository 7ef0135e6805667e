  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) mask[i] = x[i] > 0 && (x[i] & (x[i] - 1)) == 0;
}
