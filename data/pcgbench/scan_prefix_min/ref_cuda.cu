  // In place, in one launch: a block-level min-scan in shared memory plus the minimum of all values before the
  // block, read directly from x. Other blocks may already have overwritten some of those values with their
  // running minima; every such value is still at least the minimum of x[0..block start) and at most the
  // original value, so the minimum read is the same either way.
  __shared__ float tile[256];
  __shared__ float earlier[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  tile[threadIdx.x] = (i < N) ? x[i] : INFINITY;
  const size_t block_start = blockIdx.x * (size_t)blockDim.x;
  float low = INFINITY;
  for (size_t j = threadIdx.x; j < block_start; j += blockDim.x) low = fminf(low, x[j]);
  earlier[threadIdx.x] = low;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) earlier[threadIdx.x] = fminf(earlier[threadIdx.x], earlier[threadIdx.x + stride]);
    __syncthreads();
  }
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    const float other = threadIdx.x >= offset ? tile[threadIdx.x - offset] : INFINITY;
    __syncthreads();
    tile[threadIdx.x] = fminf(tile[threadIdx.x], other);
    __syncthreads();
  }
  if (i < N) x[i] = fminf(tile[threadIdx.x], earlier[0]);
}
