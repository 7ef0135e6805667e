  // Host execution space: chunks of rows build private union-find forests in parallel; then they are merged.
  const int chunks = Kokkos::DefaultExecutionSpace::concurrency();
  std::vector<std::vector<int>> forests(chunks, std::vector<int>(N));
  Kokkos::parallel_for("forests", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, chunks), [&](const int c) {
    std::vector<int> &p = forests[c];
    for (size_t v = 0; v < N; ++v) p[v] = (int)v;
    auto root = [&p](int x) {
      while (p[x] != x) x = p[x] = p[p[x]];
      return x;
    };
    // Interleaved rows balance the shrinking j-loops.
    for (size_t i = c; i < N; i += chunks)
      for (size_t j = i + 1; j < N; ++j)
        if (A(i, j)) {
          const int a = root((int)i), b = root((int)j);
          if (a != b) p[a < b ? b : a] = a < b ? a : b;
        }
    for (size_t v = 0; v < N; ++v) p[v] = root((int)v);
  });
  Kokkos::fence();
  // Union-find with path halving; `parent` is a forest over the N vertices.
  std::vector<int> parent(N);
  for (size_t v = 0; v < N; ++v) parent[v] = (int)v;
  auto find = [&parent](size_t v) {
    int x = (int)v;
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (int c = 0; c < chunks; ++c)
    for (size_t v = 0; v < N; ++v) {
      const int a = find(v), b = find(forests[c][v]);
      if (a != b) parent[a < b ? b : a] = a < b ? a : b;
    }
  std::vector<int> members(N, 0);
  int answer = 0;
  for (size_t v = 0; v < N; ++v) {
    const int r = find(v);
    if (++members[r] > answer) answer = members[r];
  }
  return answer;
}
