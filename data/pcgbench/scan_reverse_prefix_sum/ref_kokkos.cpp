  // A forward scan over output, reading x from its end.
  const size_t n = x.extent(0);
  Kokkos::parallel_scan("reverse_prefix_sum", n, KOKKOS_LAMBDA(const size_t k, int& partial, const bool final) {
    partial += x(n - 1 - k);
    if (final) output(k) = partial;
  });
  Kokkos::fence();
}
