  int acc = INT_MAX;
  const size_t n = x.size();
  for (size_t i = 0; i < n; ++i) acc = (((x[i] & 1) != 0 ? x[i] : INT_MAX) < acc ? ((x[i] & 1) != 0 ? x[i] : INT_MAX) : acc);
  return acc;
}
