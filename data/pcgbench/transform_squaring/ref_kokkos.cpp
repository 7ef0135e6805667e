  Kokkos::parallel_for("square_each", x.extent(0), KOKKOS_LAMBDA(const size_t i) { x(i) = x(i) * x(i); });
  Kokkos::fence();
}
