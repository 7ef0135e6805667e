  // One block scans its 256 values in shared memory (Hillis-Steele); the sum of all earlier values is added
  // by reading them directly, so the kernel needs no second launch.
  __shared__ double tile[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  tile[threadIdx.x] = (i < N) ? x[i] : 0.0;
  __syncthreads();
  for (unsigned offset = 1; offset < blockDim.x; offset *= 2) {
    double add = threadIdx.x >= offset ? tile[threadIdx.x - offset] : 0.0;
    __syncthreads();
    tile[threadIdx.x] += add;
    __syncthreads();
  }
  // Sum of the values in earlier blocks, computed cooperatively by the block's threads.
  __shared__ double before[256];
  const size_t block_start = blockIdx.x * (size_t)blockDim.x;
  double s = 0.0;
  for (size_t j = threadIdx.x; j < block_start; j += blockDim.x) s += x[j];
  before[threadIdx.x] = s;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) before[threadIdx.x] += before[threadIdx.x + stride];
    __syncthreads();
  }
  if (i < N) output[i] = tile[threadIdx.x] + before[0];
}
