  // Level-synchronous BFS: threads split the frontier; claiming a vertex is an atomic capture on visited.
  if (source == dest) return 0;
  std::vector<int> visited(N, 0), frontier{source};
  visited[source] = 1;
  for (int level = 1; !frontier.empty(); ++level) {
    std::vector<int> next;
    #pragma omp parallel
    {
      std::vector<int> mine;
      #pragma omp for schedule(dynamic, 4) nowait
      for (size_t f = 0; f < frontier.size(); ++f) {
        // Once dest is claimed this level's answer is known: the rest of the frontier is skipped, as the
        // serial BFS stops at dest.
        int reached;
        #pragma omp atomic read
        reached = visited[dest];
        if (reached) continue;
        const int *row = &A[(size_t)frontier[f] * N];
        for (size_t v = 0; v < N; ++v) {
          if (!row[v]) continue;
          int old;
          #pragma omp atomic read
          old = visited[v];  // other threads claim vertices meanwhile: read atomically, as they write
          if (old) continue;
          #pragma omp atomic capture
          { old = visited[v]; visited[v] = 1; }
          if (!old) mine.push_back((int)v);
        }
      }
      #pragma omp critical
      next.insert(next.end(), mine.begin(), mine.end());
    }
    if (visited[dest]) return level;
    frontier.swap(next);
  }
  return -1;
}
