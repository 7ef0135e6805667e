  // Each thread sums its own contiguous block with four independent partial sums (as the serial baseline
  // does: one running sum is a chain of dependent additions), then the threads' sums are reduced.
  const std::size_t n = x.size();
  double sum = 0.0;
  #pragma omp parallel reduction(+ : sum)
  {
    const std::size_t threads = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t id = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t begin = n * id / threads, end = n * (id + 1) / threads;
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    std::size_t i = begin;
    for (; i + 4 <= end; i += 4) {
      s0 += x[i];
      s1 += x[i + 1];
      s2 += x[i + 2];
      s3 += x[i + 3];
    }
    for (; i < end; ++i) s0 += x[i];
    sum += (s0 + s1) + (s2 + s3);
  }
  return sum / static_cast<double>(n);
}
