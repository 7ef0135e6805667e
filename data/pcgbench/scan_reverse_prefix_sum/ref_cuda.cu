  // output[k] sums x[N-1-k .. N-1]. One block scans its 256 values of x read backwards in shared memory
  // (Hillis-Steele); the sum of the values owned by earlier blocks (the end of x) is added by reading them
  // directly, so the kernel needs no second launch.
  __shared__ int tile[256];
  __shared__ int before[256];
  const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  tile[threadIdx.x] = (k < N) ? x[N - 1 - k] : 0;
  const size_t block_start = blockIdx.x * (size_t)blockDim.x;
  int s = 0;
  for (size_t j = threadIdx.x; j < block_start && j < N; j += blockDim.x) s += x[N - 1 - j];
  before[threadIdx.x] = s;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    const int add = threadIdx.x >= offset ? tile[threadIdx.x - offset] : 0;
    __syncthreads();
    tile[threadIdx.x] += add;
    __syncthreads();
  }
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) before[threadIdx.x] += before[threadIdx.x + stride];
    __syncthreads();
  }
  if (k < N) output[k] = tile[threadIdx.x] + before[0];
}
