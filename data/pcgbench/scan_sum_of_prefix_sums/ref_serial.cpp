  // x[i] appears in the prefix sums p[i], ..., p[n-1]: n - i times. Four accumulators hide the latency of the
  // floating-point adds.
  const size_t n = x.size();
  double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    a0 += x[i] * (double)(n - i);
    a1 += x[i + 1] * (double)(n - i - 1);
    a2 += x[i + 2] * (double)(n - i - 2);
    a3 += x[i + 3] * (double)(n - i - 3);
  }
  for (; i < n; ++i) a0 += x[i] * (double)(n - i);
  return (a0 + a1) + (a2 + a3);
}
