  Kokkos::parallel_for("one_minus_inverse", x.extent(0), KOKKOS_LAMBDA(const size_t i) { x(i) = 1.0 - 1.0 / x(i); });
  Kokkos::fence();
}
