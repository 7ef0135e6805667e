  int acc = 0;
  const size_t n = x.size();
  #pragma omp parallel for reduction(^ : acc)
  for (size_t i = 0; i < n; ++i) acc = acc ^ x[i];
  return acc;
}
