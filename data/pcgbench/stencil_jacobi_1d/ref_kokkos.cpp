  const size_t n = input.extent(0);
  Kokkos::parallel_for("jacobi_1d", n, KOKKOS_LAMBDA(const size_t i) {
    const double left = i > 0 ? input(i - 1) : 0.0;
    const double right = i + 1 < n ? input(i + 1) : 0.0;
    output(i) = (left + input(i) + right) / 3.0;
  });
  Kokkos::fence();
}
