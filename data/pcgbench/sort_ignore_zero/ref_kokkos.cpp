  // Host execution space, one range of x per chunk: count the non-zero values, collect them into the chunk's
  // slot of vals (offsets from a prefix sum of the counts), sort each slot, merge the slots pairwise, and
  // write each slot's share of the sorted values back over the non-zero positions of its range.
  using Host = Kokkos::DefaultHostExecutionSpace;
  const size_t n = x.extent(0);
  int *data = x.data();
  const int chunks = 2 * Kokkos::DefaultExecutionSpace::concurrency();
  std::vector<size_t> range(chunks + 1), offset(chunks + 1, 0);
  for (int c = 0; c <= chunks; ++c) range[c] = n * c / chunks;
  const size_t *r = range.data();
  size_t *o = offset.data();
  Kokkos::parallel_for("count", Kokkos::RangePolicy<Host>(0, chunks), [=](const int c) {
    size_t count = 0;
    for (size_t i = r[c]; i < r[c + 1]; ++i) count += (data[i] != 0);
    o[c + 1] = count;
  });
  for (int c = 0; c < chunks; ++c) offset[c + 1] += offset[c];
  std::vector<int> vals(offset[chunks]);
  int *v = vals.data();
  Kokkos::parallel_for("collect", Kokkos::RangePolicy<Host>(0, chunks), [=](const int c) {
    size_t k = o[c];
    for (size_t i = r[c]; i < r[c + 1]; ++i)
      if (data[i] != 0) v[k++] = data[i];
    std::sort(v + o[c], v + o[c + 1]);
  });
  for (int width = 1; width < chunks; width *= 2) {
    const int pairs = (chunks + 2 * width - 1) / (2 * width);
    Kokkos::parallel_for("merge", Kokkos::RangePolicy<Host>(0, pairs), [=](const int p) {
      const int c = p * 2 * width;
      const int mid = c + width < chunks ? c + width : chunks;
      const int end = c + 2 * width < chunks ? c + 2 * width : chunks;
      std::inplace_merge(v + o[c], v + o[mid], v + o[end]);
    });
  }
  Kokkos::parallel_for("write_back", Kokkos::RangePolicy<Host>(0, chunks), [=](const int c) {
    size_t k = o[c];
    for (size_t i = r[c]; i < r[c + 1]; ++i)
      if (data[i] != 0) data[i] = v[k++];
  });
  Kokkos::fence();
}
