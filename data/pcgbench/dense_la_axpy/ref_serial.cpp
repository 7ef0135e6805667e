  const size_t n = z.size();
  for (size_t i = 0; i < n; ++i) z[i] = alpha * x[i] + y[i];
}
