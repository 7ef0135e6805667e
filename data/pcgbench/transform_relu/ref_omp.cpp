  const std::size_t n = x.size();
  #pragma omp parallel for schedule(static)
  for (std::size_t i = 0; i < n; ++i) x[i] = x[i] < 0.0 ? 0.0 : x[i];
}
