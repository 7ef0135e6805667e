  // Level-synchronous BFS over a frontier view; a vertex is claimed with an atomic compare-exchange on dist.
  if (source == dest) return 0;
  Kokkos::View<int*> dist("dist", N), frontier("frontier", N), next("next", N), count("count", 1);
  Kokkos::deep_copy(dist, -1);
  dist(source) = 0;
  frontier(0) = source;
  int size = 1;
  for (int level = 1; size > 0; ++level) {
    Kokkos::deep_copy(count, 0);
    Kokkos::parallel_for("expand", size, KOKKOS_LAMBDA(const int f) {
      // Once dest is claimed this level's answer is known: the rest of the frontier is skipped, as the serial
      // BFS stops at dest (an atomic read: other threads claim vertices meanwhile).
      if (Kokkos::atomic_fetch_add(&dist(dest), 0) >= 0) return;
      const int u = frontier(f);
      for (size_t v = 0; v < N; ++v)
        if (A(u, v) && dist(v) < 0 && Kokkos::atomic_compare_exchange(&dist(v), -1, level) == -1)
          next(Kokkos::atomic_fetch_add(&count(0), 1)) = (int)v;
    });
    Kokkos::fence();
    if (dist(dest) >= 0) return dist(dest);
    size = count(0);
    Kokkos::View<int*> tmp = frontier;
    frontier = next;
    next = tmp;
  }
  return -1;
}
