  // Binary search on the value with a parallel count per step.
  const size_t n = x.extent(0);
  int lo_i = 0, hi_i = 0;
  Kokkos::parallel_reduce("min", n, KOKKOS_LAMBDA(const size_t i, int& m) { m = x(i) < m ? x(i) : m; },
                          Kokkos::Min<int>(lo_i));
  Kokkos::parallel_reduce("max", n, KOKKOS_LAMBDA(const size_t i, int& m) { m = x(i) > m ? x(i) : m; },
                          Kokkos::Max<int>(hi_i));
  long long lo = lo_i, hi = hi_i;
  while (lo < hi) {
    const long long mid = lo + (hi - lo) / 2;
    size_t count = 0;
    Kokkos::parallel_reduce("count", n, KOKKOS_LAMBDA(const size_t i, size_t& c) { c += (x(i) <= mid); }, count);
    if (count >= (size_t)k) hi = mid;
    else lo = mid + 1;
  }
  return static_cast<int>(lo);
}
