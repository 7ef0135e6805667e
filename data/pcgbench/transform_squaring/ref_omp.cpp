  const size_t n = x.size();
  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) x[i] = x[i] * x[i];
}
