  // The two boundary points are done apart, so the interior kernel has no branches.
  const size_t n = input.extent(0);
  if (n == 1) {
    Kokkos::parallel_for("jacobi_1d_single", 1, KOKKOS_LAMBDA(const size_t) { output(0) = input(0) / 3.0; });
    Kokkos::fence();
    return;
  }
  Kokkos::parallel_for("jacobi_1d_interior", Kokkos::RangePolicy<>(1, n - 1), KOKKOS_LAMBDA(const size_t i) {
    output(i) = (input(i - 1) + input(i) + input(i + 1)) / 3.0;
  });
  Kokkos::parallel_for("jacobi_1d_ends", 1, KOKKOS_LAMBDA(const size_t) {
    output(0) = (input(0) + input(1)) / 3.0;
    output(n - 1) = (input(n - 2) + input(n - 1)) / 3.0;
  });
  Kokkos::fence();
}
