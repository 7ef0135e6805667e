  if (source == dest) return 0;
  std::vector<int> dist(N, -1), queue(N);
  size_t head = 0, tail = 0;
  dist[source] = 0;
  queue[tail++] = source;
  while (head < tail) {
    const int u = queue[head++];
    const int *row = &A[(size_t)u * N];
    for (size_t v = 0; v < N; ++v)
      if (row[v] && dist[v] < 0) {
        dist[v] = dist[u] + 1;
        if ((int)v == dest) return dist[v];
        queue[tail++] = (int)v;
      }
  }
  return -1;
}
