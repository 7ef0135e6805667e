  // Every element finds its place in z by binary search in the other vector: the element x[i] lands at
  // i + (number of y indices below it); y[j] likewise, unless x has the same index (then x[i] writes it).
  const size_t nx = x.extent(0), ny = y.extent(0);
  Kokkos::parallel_for("sparse_axpy", Kokkos::RangePolicy<>(0, nx + ny), KOKKOS_LAMBDA(const size_t t) {
    const bool from_x = t < nx;
    const size_t k = from_x ? t : t - nx;
    const size_t index = from_x ? x(k).index : y(k).index;
    const size_t n_other = from_x ? ny : nx;
    size_t lo = 0, hi = n_other;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if ((from_x ? y(mid).index : x(mid).index) < index) lo = mid + 1; else hi = mid;
    }
    const bool shared = lo < n_other && (from_x ? y(lo).index : x(lo).index) == index;
    if (from_x) z(k + lo) = Element{index, alpha * x(k).value + (shared ? y(lo).value : 0.0)};
    else if (!shared) z(k + lo) = y(k);
  });
  Kokkos::fence();
}
