  Kokkos::parallel_for("power_of_two_mask", mask.extent(0), KOKKOS_LAMBDA(const size_t i) { mask(i) = ((x(i) > 0 && (x(i) & (x(i) - 1)) == 0) ? 1 : 0); });
  Kokkos::fence();
}
