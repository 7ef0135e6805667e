  // Each thread builds a union-find of the edges in its rows (a private forest), then the forests are merged
  // into one: vertex v joins the set of its root in every private forest.
  const int threads = omp_get_max_threads();
  std::vector<std::vector<int>> forests(threads, std::vector<int>(N));
  #pragma omp parallel
  {
    std::vector<int> &p = forests[omp_get_thread_num()];
    for (size_t v = 0; v < N; ++v) p[v] = (int)v;
    auto root = [&p](int x) {
      while (p[x] != x) x = p[x] = p[p[x]];
      return x;
    };
    #pragma omp for schedule(dynamic, 16)
    for (size_t i = 0; i < N; ++i)
      for (size_t j = i + 1; j < N; ++j)
        if (A[i * N + j]) {
          const int a = root((int)i), b = root((int)j);
          if (a != b) p[a < b ? b : a] = a < b ? a : b;
        }
    #pragma omp for
    for (size_t v = 0; v < N; ++v) p[v] = root((int)v);  // flatten for the merge
  }
  // Union-find with path halving; `parent` is a forest over the N vertices.
  std::vector<int> parent(N);
  for (size_t v = 0; v < N; ++v) parent[v] = (int)v;
  auto find = [&parent](size_t v) {
    int x = (int)v;
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (int t = 0; t < threads; ++t)
    for (size_t v = 0; v < N; ++v) {
      const int a = find(v), b = find(forests[t][v]);
      if (a != b) parent[a < b ? b : a] = a < b ? a : b;
    }
  int answer = 0;
  for (size_t v = 0; v < N; ++v) answer += (find(v) == (int)v);
  return answer;
}
