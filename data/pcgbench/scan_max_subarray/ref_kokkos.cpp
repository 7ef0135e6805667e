  // Chunks summarised in parallel as (total, best prefix, best suffix, best inside), combined in order.
  const size_t n = x.extent(0);
  const size_t chunks = 256, chunk = (n + chunks - 1) / chunks;
  Kokkos::View<long long*[5]> s("summaries", chunks);
  Kokkos::parallel_for("summaries", chunks, KOKKOS_LAMBDA(const size_t c) {
    const size_t begin = c * chunk, end = (c + 1) * chunk < n ? (c + 1) * chunk : n;
    s(c, 4) = 0;
    if (begin >= end) return;
    long long total = 0, prefix = x(begin), ending = 0, best = x(begin);
    for (size_t i = begin; i < end; ++i) {
      total += x(i);
      prefix = total > prefix ? total : prefix;
      ending = ending > 0 ? ending + x(i) : x(i);
      best = ending > best ? ending : best;
    }
    s(c, 0) = total; s(c, 1) = prefix; s(c, 2) = ending; s(c, 3) = best; s(c, 4) = 1;
  });
  Kokkos::fence();
  bool have = false;
  long long total = 0, prefix = 0, suffix = 0, best = 0;
  for (size_t c = 0; c < chunks; ++c) {
    if (!s(c, 4)) continue;
    if (!have) { total = s(c, 0); prefix = s(c, 1); suffix = s(c, 2); best = s(c, 3); have = true; continue; }
    const long long new_prefix = prefix > total + s(c, 1) ? prefix : total + s(c, 1);
    const long long new_suffix = s(c, 2) > s(c, 0) + suffix ? s(c, 2) : s(c, 0) + suffix;
    long long new_best = best > s(c, 3) ? best : s(c, 3);
    new_best = new_best > suffix + s(c, 1) ? new_best : suffix + s(c, 1);
    total += s(c, 0); prefix = new_prefix; suffix = new_suffix; best = new_best;
  }
  return (int)best;
}
