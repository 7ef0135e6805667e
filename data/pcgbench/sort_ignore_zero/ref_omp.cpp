  // Each thread collects the non-zero values of its range into its slot of vals (offsets from a prefix sum of
  // the counts) and sorts them; the runs are merged pairwise in parallel; each thread writes its slot's share
  // of the sorted values back over the non-zero positions of its range.
  const size_t n = x.size();
  std::vector<int> vals;
  std::vector<size_t> offset;
  #pragma omp parallel
  {
    const int t = omp_get_thread_num(), T = omp_get_num_threads();
    const size_t lo = n * t / T, hi = n * (t + 1) / T;
    #pragma omp single
    offset.assign(T + 1, 0);
    size_t count = 0;
    for (size_t i = lo; i < hi; ++i) count += (x[i] != 0);
    offset[t + 1] = count;
    #pragma omp barrier
    #pragma omp single
    {
      for (int c = 0; c < T; ++c) offset[c + 1] += offset[c];
      vals.resize(offset[T]);
    }
    size_t k = offset[t];
    for (size_t i = lo; i < hi; ++i)
      if (x[i] != 0) vals[k++] = x[i];
    std::sort(vals.begin() + offset[t], vals.begin() + offset[t + 1]);
    #pragma omp barrier
    for (int width = 1; width < T; width *= 2) {
      #pragma omp for schedule(dynamic, 1)
      for (int c = 0; c < T; c += 2 * width) {
        const int mid = c + width < T ? c + width : T;
        const int end = c + 2 * width < T ? c + 2 * width : T;
        std::inplace_merge(vals.begin() + offset[c], vals.begin() + offset[mid], vals.begin() + offset[end]);
      }
    }
    k = offset[t];
    for (size_t i = lo; i < hi; ++i)
      if (x[i] != 0) x[i] = vals[k++];
  }
}
