  const size_t n = input.size();
  #pragma omp parallel for schedule(static)
  for (size_t i = 0; i < n; ++i) {
    const double left = i > 0 ? input[i - 1] : 0.0;
    const double right = i + 1 < n ? input[i + 1] : 0.0;
    output[i] = (left + input[i] + right) / 3.0;
  }
}
