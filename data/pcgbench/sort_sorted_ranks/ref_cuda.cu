  // Thread i counts the elements that sort before x[i] (smaller, or equal at a smaller index). The values are
  // read in tiles through shared memory, every thread of the block scanning the same tile.
  __shared__ float tile[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const float v = i < N ? x[i] : 0.0f;
  size_t before = 0;
  for (size_t start = 0; start < N; start += blockDim.x) {
    if (start + threadIdx.x < N) tile[threadIdx.x] = x[start + threadIdx.x];
    __syncthreads();
    const size_t count = N - start < blockDim.x ? N - start : blockDim.x;
    for (size_t t = 0; t < count; ++t) {
      const float w = tile[t];
      before += (w < v) || (w == v && start + t < i);
    }
    __syncthreads();
  }
  if (i < N) ranks[i] = before;
}
