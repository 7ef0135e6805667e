  // Each thread counts the true values of a contiguous slice; the XOR is the parity of the total.
  const size_t n = x.size();
  size_t count = 0;
  #pragma omp parallel for reduction(+ : count) schedule(static)
  for (size_t i = 0; i < n; ++i) count += x[i];
  return (count & 1) != 0;
}
