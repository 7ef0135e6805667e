  // Each rank builds a union-find forest of the edges in its block of rows; rank 0 gathers the flattened
  // forests and merges them.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
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
    for (size_t i = N * rank / size; i < N * (rank + 1) / size; ++i)
      for (size_t j = i + 1; j < N; ++j)
        if (A[i * N + j]) {
          const int a = root((int)i), b = root((int)j);
          if (a != b) p[a < b ? b : a] = a < b ? a : b;
        }
    #pragma omp for
    for (size_t v = 0; v < N; ++v) p[v] = root((int)v);
  }
  std::vector<int> mine(N);
  for (size_t v = 0; v < N; ++v) mine[v] = (int)v;
  auto mine_root = [&mine](int x) {
    while (mine[x] != x) x = mine[x] = mine[mine[x]];
    return x;
  };
  for (int t = 0; t < threads; ++t)
    for (size_t v = 0; v < N; ++v) {
      const int a = mine_root((int)v), b = mine_root(forests[t][v]);
      if (a != b) mine[a < b ? b : a] = a < b ? a : b;
    }
  for (size_t v = 0; v < N; ++v) mine[v] = mine_root((int)v);
  std::vector<int> all(rank == 0 ? N * size : 0);
  MPI_Gather(mine.data(), (int)N, MPI_INT, all.data(), (int)N, MPI_INT, 0, MPI_COMM_WORLD);
  if (rank != 0) return 0;
  // Union-find with path halving; `parent` is a forest over the N vertices.
  std::vector<int> parent(N);
  for (size_t v = 0; v < N; ++v) parent[v] = (int)v;
  auto find = [&parent](size_t v) {
    int x = (int)v;
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (int r = 0; r < size; ++r)
    for (size_t v = 0; v < N; ++v) {
      const int a = find(v), b = find(all[r * N + v]);
      if (a != b) parent[a < b ? b : a] = a < b ? a : b;
    }
  int answer = 0;
  for (size_t v = 0; v < N; ++v) answer += (find(v) == (int)v);
  return answer;
}
