  // Row starts of A and X by binary search (both sorted by row), then one parallel iteration per row of Y.
  Kokkos::View<size_t*> aptr("aptr", M + 1), xptr("xptr", K + 1);
  const size_t sizeA = A.extent(0), sizeX = X.extent(0);
  Kokkos::parallel_for("spmm_aptr", Kokkos::RangePolicy<>(0, M + 1), KOKKOS_LAMBDA(const size_t i) {
    size_t lo = 0, hi = sizeA;
    while (lo < hi) { const size_t mid = lo + (hi - lo) / 2; if (A(mid).row < i) lo = mid + 1; else hi = mid; }
    aptr(i) = lo;
  });
  Kokkos::parallel_for("spmm_xptr", Kokkos::RangePolicy<>(0, K + 1), KOKKOS_LAMBDA(const size_t k) {
    size_t lo = 0, hi = sizeX;
    while (lo < hi) { const size_t mid = lo + (hi - lo) / 2; if (X(mid).row < k) lo = mid + 1; else hi = mid; }
    xptr(k) = lo;
  });
  Kokkos::parallel_for("spmm_rows", Kokkos::RangePolicy<>(0, M), KOKKOS_LAMBDA(const size_t i) {
    for (size_t q = aptr(i); q < aptr(i + 1); ++q) {
      const COOElement a = A(q);
      for (size_t p = xptr(a.column); p < xptr(a.column + 1); ++p) Y(i, X(p).column) += a.value * X(p).value;
    }
  });
  Kokkos::fence();
  (void)N;
}
