  // Level-synchronous BFS: each rank expands its share of the frontier; the vertices reached in this level
  // are combined with an all-reduce so every rank knows the next frontier.
  if (source == dest) return 0;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<char> visited(N, 0), reached(N), all(N);
  std::vector<int> frontier{source};
  visited[source] = 1;
  for (int level = 1; !frontier.empty(); ++level) {
    std::fill(reached.begin(), reached.end(), 0);
    for (size_t f = rank; f < frontier.size(); f += size) {
      const int *row = &A[(size_t)frontier[f] * N];
      for (size_t v = 0; v < N; ++v) reached[v] |= (row[v] && !visited[v]);
    }
    MPI_Allreduce(reached.data(), all.data(), (int)N, MPI_CHAR, MPI_BOR, MPI_COMM_WORLD);
    if (all[dest]) return level;
    frontier.clear();
    for (size_t v = 0; v < N; ++v)
      if (all[v]) {
        visited[v] = 1;
        frontier.push_back((int)v);
      }
  }
  return -1;
}
