  Kokkos::parallel_scan("prefix_sum", x.extent(0), KOKKOS_LAMBDA(const int i, double& partial, const bool final) {
    partial += x(i);
    if (final) output(i) = partial;
  });
  Kokkos::fence();
}
