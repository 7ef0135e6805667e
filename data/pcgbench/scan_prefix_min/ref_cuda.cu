  // Block-level min-scan in shared memory plus the minimum of all values before the block.
  __shared__ double tile[256];
  __shared__ double earlier[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  tile[threadIdx.x] = (i < N) ? x[i] : INFINITY;
  const size_t block_start = blockIdx.x * (size_t)blockDim.x;
  double low = INFINITY;
  for (size_t j = threadIdx.x; j < block_start; j += blockDim.x) low = fmin(low, x[j]);
  earlier[threadIdx.x] = low;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) earlier[threadIdx.x] = fmin(earlier[threadIdx.x], earlier[threadIdx.x + stride]);
    __syncthreads();
  }
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    const double other = threadIdx.x >= offset ? tile[threadIdx.x - offset] : INFINITY;
    __syncthreads();
    tile[threadIdx.x] = fmin(tile[threadIdx.x], other);
    __syncthreads();
  }
  if (i < N) output[i] = fmin(tile[threadIdx.x], earlier[0]);
}
