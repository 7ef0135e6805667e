  // Two parallel phases over chunks: scan each chunk, then fold in the minimum of all earlier chunks.
  const size_t n = x.extent(0);
  const size_t chunks = 256, chunk = (n + chunks - 1) / chunks;
  Kokkos::View<double*> chunk_min("chunk_min", chunks);
  Kokkos::parallel_for("scan_chunks", chunks, KOKKOS_LAMBDA(const size_t c) {
    double low = HUGE_VAL;
    const size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (size_t i = c * chunk; i < end; ++i) {
      low = x(i) < low ? x(i) : low;
      output(i) = low;
    }
    chunk_min(c) = low;
  });
  Kokkos::fence();
  Kokkos::View<double*> before("before", chunks);
  double running = std::numeric_limits<double>::infinity();
  for (size_t c = 0; c < chunks; ++c) {
    before(c) = running;
    running = chunk_min(c) < running ? chunk_min(c) : running;
  }
  Kokkos::parallel_for("fix_chunks", chunks, KOKKOS_LAMBDA(const size_t c) {
    const size_t end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    for (size_t i = c * chunk; i < end; ++i) output(i) = output(i) < before(c) ? output(i) : before(c);
  });
  Kokkos::fence();
}
