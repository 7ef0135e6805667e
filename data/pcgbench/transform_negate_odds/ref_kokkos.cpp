  Kokkos::parallel_for("negate_odds", x.extent(0), KOKKOS_LAMBDA(const size_t i) { x(i) = ((x(i) & 1) != 0 ? -x(i) : x(i) / 2); });
  Kokkos::fence();
}
