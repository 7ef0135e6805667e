  // Radix select on the top 16 bits of (value - min): a parallel histogram finds the bucket that holds the
  // k-th value, then only that bucket's values are collected and searched.
  const size_t n = x.size();
  int lo = x[0], hi = x[0];
  #pragma omp parallel for reduction(min : lo) reduction(max : hi)
  for (size_t i = 0; i < n; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  const unsigned long long range = (unsigned long long)((long long)hi - lo);
  int shift = 0;
  while ((range >> shift) >= 65536) ++shift;
  const size_t buckets = (size_t)(range >> shift) + 1;
  std::vector<size_t> count(buckets, 0);
  #pragma omp parallel
  {
    std::vector<size_t> mine(buckets, 0);
    #pragma omp for nowait
    for (size_t i = 0; i < n; ++i) ++mine[(size_t)(((long long)x[i] - lo) >> shift)];
    #pragma omp critical
    for (size_t b = 0; b < buckets; ++b) count[b] += mine[b];
  }
  size_t bucket = 0, before = 0;
  while (before + count[bucket] < (size_t)k) before += count[bucket++];
  std::vector<int> candidates;
  #pragma omp parallel
  {
    std::vector<int> mine;
    #pragma omp for nowait
    for (size_t i = 0; i < n; ++i)
      if ((size_t)(((long long)x[i] - lo) >> shift) == bucket) mine.push_back(x[i]);
    #pragma omp critical
    candidates.insert(candidates.end(), mine.begin(), mine.end());
  }
  std::nth_element(candidates.begin(), candidates.begin() + ((size_t)k - 1 - before), candidates.end());
  return candidates[(size_t)k - 1 - before];
}
