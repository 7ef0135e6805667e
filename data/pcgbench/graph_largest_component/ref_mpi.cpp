  // Each rank builds a union-find forest of the edges in its block of rows; rank 0 gathers the flattened
  // forests and merges them.
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<int> mine(N);
  for (size_t v = 0; v < N; ++v) mine[v] = (int)v;
  auto mine_root = [&mine](int x) {
    while (mine[x] != x) x = mine[x] = mine[mine[x]];
    return x;
  };
  for (size_t i = N * rank / size; i < N * (rank + 1) / size; ++i)
    for (size_t j = i + 1; j < N; ++j)
      if (A[i * N + j]) {
        const int a = mine_root((int)i), b = mine_root((int)j);
        if (a != b) mine[a < b ? b : a] = a < b ? a : b;
      }
  for (size_t v = 0; v < N; ++v) mine[v] = mine_root((int)v);  // flatten before sending
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
  std::vector<int> members(N, 0);
  int answer = 0;
  for (size_t v = 0; v < N; ++v) {
    const int r = find(v);
    if (++members[r] > answer) answer = members[r];
  }
  return answer;
}
