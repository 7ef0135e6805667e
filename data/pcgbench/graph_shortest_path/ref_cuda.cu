  // A level-synchronous breadth-first search needs a barrier between levels, and blocks cannot wait for one
  // another inside a kernel, so the first block does all the work and the others return at once. Its thread 0
  // takes the distance array from the device heap. At each level the block reads the rows of the vertices on
  // the current level, its threads splitting the columns (coalesced reads), and gives every unreached
  // neighbour the next level (threads that race write the same value).
  if (blockIdx.x != 0 || blockIdx.y != 0) return;
  const unsigned t = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
  __shared__ int *distances;
  __shared__ int changed;
  if (t == 0) distances = (int *)malloc(N * sizeof(int));
  __syncthreads();
  if (distances == nullptr) {
    if (t == 0) *pathLength = -2;  // no device heap left: a visibly wrong answer
    return;
  }
  volatile int *dist = distances;
  for (size_t v = t; v < N; v += threads) dist[v] = ((int)v == source) ? 0 : -1;
  __syncthreads();
  for (int level = 0;; ++level) {
    if (t == 0) changed = 0;
    __syncthreads();
    for (size_t u = 0; u < N; ++u) {
      if (dist[u] != level) continue;  // only level + 1 is written during this level: all threads agree
      for (size_t v = t; v < N; v += threads)
        if (A[u * N + v] && dist[v] < 0) {
          dist[v] = level + 1;
          changed = 1;
        }
    }
    __syncthreads();
    const bool done = !changed || dist[dest] >= 0;
    __syncthreads();  // everyone has read `changed` before thread 0 clears it
    if (done) break;
  }
  if (t == 0) {
    *pathLength = dist[dest];
    free(distances);
  }
}
