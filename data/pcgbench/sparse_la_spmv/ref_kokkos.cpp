  // Scale y, then every element adds its product to its row atomically.
  Kokkos::parallel_for("spmv_scale", Kokkos::RangePolicy<>(0, M), KOKKOS_LAMBDA(const size_t i) { y(i) *= beta; });
  Kokkos::parallel_for("spmv_add", Kokkos::RangePolicy<>(0, A.extent(0)), KOKKOS_LAMBDA(const size_t k) {
    Kokkos::atomic_add(&y(A(k).row), alpha * A(k).value * x(A(k).column));
  });
  Kokkos::fence();
  (void)N;
}
