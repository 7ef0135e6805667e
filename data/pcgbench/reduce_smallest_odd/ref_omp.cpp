  int acc = INT_MAX;
  const size_t n = x.size();
  #pragma omp parallel for reduction(min : acc)
  for (size_t i = 0; i < n; ++i) acc = (((x[i] & 1) != 0 ? x[i] : INT_MAX) < acc ? ((x[i] & 1) != 0 ? x[i] : INT_MAX) : acc);
  return acc;
}
