  double acc = 1.0;
  const size_t n = x.size();
  #pragma omp parallel for reduction(* : acc)
  for (size_t i = 0; i < n; ++i) acc = acc * ((i & 1) ? 1.0 / x[i] : x[i]);
  return acc;
}
