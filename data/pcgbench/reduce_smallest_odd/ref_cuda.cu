  // Combine within the block in shared memory, then one atomic update per block.
  __shared__ int part[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  part[threadIdx.x] = (i < N) ? (int)(((x[i] & 1) != 0 ? x[i] : INT_MAX)) : (int)(INT_MAX);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] = (part[threadIdx.x + stride] < part[threadIdx.x] ? part[threadIdx.x + stride] : part[threadIdx.x]);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const int block = part[0];
    atomicMin(smallest, block);
  }
}
