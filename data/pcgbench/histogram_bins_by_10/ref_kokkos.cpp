  // Atomic increments into a fresh view; then copy the ten counts out.
  Kokkos::View<size_t[10]> counts("counts");
  Kokkos::parallel_for("bins_by_10", x.extent(0), KOKKOS_LAMBDA(const int i) {
    Kokkos::atomic_increment(&counts(static_cast<int>(x(i) / 10.0)));
  });
  Kokkos::fence();
  for (int k = 0; k < 10; ++k) bins(k) = counts(k);
}
