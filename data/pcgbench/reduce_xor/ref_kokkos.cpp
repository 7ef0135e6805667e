  // Kokkos 3 has no built-in XOR reducer: XOR contiguous chunks in parallel, then combine the partials.
  const size_t n = x.extent(0);
  const size_t chunks = 256, chunk = (n + chunks - 1) / chunks;
  Kokkos::View<int*> partial("partial", chunks);
  Kokkos::parallel_for("xor_chunks", chunks, KOKKOS_LAMBDA(const size_t c) {
    int acc = 0;
    const size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (size_t i = c * chunk; i < end; ++i) acc ^= x(i);
    partial(c) = acc;
  });
  Kokkos::fence();
  int result = 0;
  for (size_t c = 0; c < chunks; ++c) result ^= partial(c);
  return result;
}
