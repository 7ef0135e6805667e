  // A forward scan over the reversed index.
  const size_t n = x.extent(0);
  Kokkos::parallel_scan("reverse_prefix_sum", n, KOKKOS_LAMBDA(const size_t j, int& partial, const bool final) {
    const size_t i = n - 1 - j;
    partial += x(i);
    if (final) output(i) = partial;
  });
  Kokkos::fence();
}
