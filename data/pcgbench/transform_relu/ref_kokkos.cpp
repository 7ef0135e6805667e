  Kokkos::parallel_for("relu", x.extent(0), KOKKOS_LAMBDA(const size_t i) { x(i) = x(i) < 0.0 ? 0.0 : x(i); });
  Kokkos::fence();
}
