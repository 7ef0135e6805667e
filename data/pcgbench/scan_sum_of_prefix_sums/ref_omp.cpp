  // x[i] appears in the prefix sums p[i], ..., p[n-1]: n - i times. Each thread sums a contiguous block with
  // four accumulators (hiding the latency of the floating-point adds); the blocks are reduced.
  const size_t n = x.size();
  double acc = 0.0;
  #pragma omp parallel reduction(+ : acc)
  {
    const size_t t = omp_get_thread_num(), nt = omp_get_num_threads();
    const size_t begin = n * t / nt, end = n * (t + 1) / nt;
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    size_t i = begin;
    for (; i + 4 <= end; i += 4) {
      a0 += x[i] * (double)(n - i);
      a1 += x[i + 1] * (double)(n - i - 1);
      a2 += x[i + 2] * (double)(n - i - 2);
      a3 += x[i + 3] * (double)(n - i - 3);
    }
    for (; i < end; ++i) a0 += x[i] * (double)(n - i);
    acc += (a0 + a1) + (a2 + a3);
  }
  return acc;
}
