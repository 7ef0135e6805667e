  // Each block sums the values after its last element cooperatively, then scans its own 256 values
  // from the right in shared memory.
  __shared__ int tile[256];
  __shared__ int after[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  tile[threadIdx.x] = (i < N) ? x[i] : 0;
  const size_t block_end = (blockIdx.x + 1) * (size_t)blockDim.x;
  int s = 0;
  for (size_t j = block_end + threadIdx.x; j < N; j += blockDim.x) s += x[j];
  after[threadIdx.x] = s;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) after[threadIdx.x] += after[threadIdx.x + stride];
    __syncthreads();
  }
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    const int add = threadIdx.x + offset < blockDim.x ? tile[threadIdx.x + offset] : 0;
    __syncthreads();
    tile[threadIdx.x] += add;
    __syncthreads();
  }
  if (i < N) output[i] = tile[threadIdx.x] + after[0];
}
