  // A union-find forest has to be shared by the threads that build it, and blocks cannot wait for one another
  // inside a kernel, so the first block does all the work and the others return at once. Its thread 0 takes the
  // forest from the device heap. The block walks the upper triangle row by row, its threads splitting the
  // columns (coalesced reads); an edge hooks the larger of its two roots under the smaller one with atomicCAS
  // (lock-free: pointers only ever go to smaller vertices, so no cycle forms). Then the roots are counted.
  if (blockIdx.x != 0 || blockIdx.y != 0) return;
  const unsigned t = threadIdx.y * blockDim.x + threadIdx.x, threads = blockDim.x * blockDim.y;
  __shared__ int *forest;
  __shared__ int roots;
  if (t == 0) {
    forest = (int *)malloc(N * sizeof(int));
    roots = 0;
  }
  __syncthreads();
  if (forest == nullptr) {
    if (t == 0) *numComponents = -1;  // no device heap left: a visibly wrong answer
    return;
  }
  volatile int *parent = forest;
  for (size_t v = t; v < N; v += threads) parent[v] = (int)v;
  __syncthreads();
  for (size_t i = 0; i < N; ++i)
    for (size_t j = i + 1 + t; j < N; j += threads) {
      if (!A[i * N + j]) continue;
      while (true) {
        int a = (int)i, b = (int)j;
        while (parent[a] != a) a = parent[a];
        while (parent[b] != b) b = parent[b];
        if (a == b) break;
        if (a > b) { const int s = a; a = b; b = s; }
        if (atomicCAS(&forest[b], b, a) == b) break;
      }
    }
  __syncthreads();
  int mine = 0;
  for (size_t v = t; v < N; v += threads) mine += (parent[v] == (int)v);
  atomicAdd(&roots, mine);
  __syncthreads();
  if (t == 0) {
    *numComponents = roots;
    free(forest);
  }
}
