  const size_t n = mask.size();
  for (size_t i = 0; i < n; ++i) mask[i] = ((x[i] > 0 && (x[i] & (x[i] - 1)) == 0) ? 1 : 0);
}
