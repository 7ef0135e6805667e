  // Union-find with path halving; `parent` is a forest over the N vertices.
  std::vector<int> parent(N);
  for (size_t v = 0; v < N; ++v) parent[v] = (int)v;
  auto find = [&parent](size_t v) {
    int x = (int)v;
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t i = 0; i < N; ++i) {
    const int *row = &A[i * N];
    for (size_t j = i + 1; j < N; ++j)
      if (row[j]) {
        const int a = find(i), b = find(j);
        if (a != b) parent[a < b ? b : a] = a < b ? a : b;
      }
  }
  std::vector<int> members(N, 0);
  int answer = 0;
  for (size_t v = 0; v < N; ++v) {
    const int r = find(v);
    if (++members[r] > answer) answer = members[r];
  }
  return answer;
}
