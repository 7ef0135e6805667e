  // One block, level by level: a thread looks at its vertices v that are not yet reached and reaches them if
  // any neighbour is on the current level; a shared flag says whether anything changed.
  __shared__ int changed;
  for (size_t v = threadIdx.x; v < N; v += blockDim.x) dist[v] = ((int)v == source) ? 0 : -1;
  __syncthreads();
  for (int level = 0;; ++level) {
    if (threadIdx.x == 0) changed = 0;
    __syncthreads();
    for (size_t v = threadIdx.x; v < N; v += blockDim.x) {
      if (dist[v] >= 0) continue;
      for (size_t u = 0; u < N; ++u)
        if (A[u * N + v] && dist[u] == level) {
          dist[v] = level + 1;
          changed = 1;
          break;
        }
    }
    __syncthreads();
    if (!changed || dist[dest] >= 0) break;
    __syncthreads();
  }
  if (threadIdx.x == 0) *length = dist[dest];
}
