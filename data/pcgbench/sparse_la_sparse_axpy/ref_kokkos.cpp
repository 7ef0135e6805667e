  // The index space is split into chunks (a few per thread); each chunk merges its part of x and y twice,
  // first counting its output elements (a scan over the chunks gives every chunk its offset in z), then
  // writing them.
  const size_t nx = x.extent(0), ny = y.extent(0);
  if (nx + ny == 0) return;
  const size_t last_x = nx ? x(nx - 1).index : 0, last_y = ny ? y(ny - 1).index : 0;
  const size_t span = 1 + (last_x > last_y ? last_x : last_y);
  const size_t chunks = std::min<size_t>(span, 8 * Kokkos::DefaultExecutionSpace::concurrency());
  auto lower = [](const Kokkos::View<const Element*>& v, size_t n, size_t index) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (v(mid).index < index) lo = mid + 1; else hi = mid;
    }
    return lo;
  };
  auto merge = [=](size_t c, size_t out, bool write) {
    const size_t lo = span / chunks * c + (span % chunks) * c / chunks;
    const size_t hi = span / chunks * (c + 1) + (span % chunks) * (c + 1) / chunks;
    size_t i = lower(x, nx, lo), j = lower(y, ny, lo);
    const size_t i1 = lower(x, nx, hi), j1 = lower(y, ny, hi);
    size_t n = out;
    while (i < i1 || j < j1) {
      Element e;
      if (j >= j1 || (i < i1 && x(i).index < y(j).index)) { e = Element{x(i).index, alpha * x(i).value}; ++i; }
      else if (i >= i1 || y(j).index < x(i).index) { e = y(j); ++j; }
      else { e = Element{x(i).index, alpha * x(i).value + y(j).value}; ++i; ++j; }
      if (write) z(n) = e;
      ++n;
    }
    return n - out;
  };
  Kokkos::View<size_t*> offset("offset", chunks);
  Kokkos::parallel_for("sparse_axpy_count", Kokkos::RangePolicy<>(0, chunks), KOKKOS_LAMBDA(const size_t c) {
    offset(c) = merge(c, 0, false);
  });
  Kokkos::parallel_scan("sparse_axpy_offsets", Kokkos::RangePolicy<>(0, chunks),
    KOKKOS_LAMBDA(const size_t c, size_t& sum, const bool final) {
      const size_t count = offset(c);
      if (final) offset(c) = sum;
      sum += count;
    });
  Kokkos::parallel_for("sparse_axpy_write", Kokkos::RangePolicy<>(0, chunks), KOKKOS_LAMBDA(const size_t c) {
    merge(c, offset(c), true);
  });
  Kokkos::fence();
}
