  // Thread i unions vertex i with its higher-numbered neighbours (lock-free: a root is hooked under the
  // smaller root with atomicCAS). The last thread to finish, detected with a counter after a memory fence,
  // reads the finished forest.
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N) {
    for (size_t j = i + 1; j < N; ++j) {
      if (!A[i * N + j]) continue;
      while (true) {
        int a = (int)i, b = (int)j;
        while (parent[a] != a) a = parent[a];
        while (parent[b] != b) b = parent[b];
        if (a == b) break;
        if (a > b) { const int t = a; a = b; b = t; }
        if (atomicCAS(&parent[b], b, a) == b) break;
      }
    }
  }
  __threadfence();
  const unsigned launched = gridDim.x * blockDim.x;
  if (atomicAdd(finished, 1u) == launched - 1) {
    int roots = 0;
    for (size_t v = 0; v < N; ++v) roots += (parent[v] == (int)v);
    *result = roots;
  }
}
