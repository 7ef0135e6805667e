  Kokkos::parallel_for("axpy", z.extent(0), KOKKOS_LAMBDA(const size_t i) { z(i) = alpha * x(i) + y(i); });
  Kokkos::fence();
}
