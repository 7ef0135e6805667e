  // Combine within the block in shared memory, then one atomic update per block.
  __shared__ double part[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  part[threadIdx.x] = (i < N) ? (double)((x[i] < y[i] ? x[i] : y[i])) : (double)(0.0);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] = part[threadIdx.x] + part[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double block = part[0];
    atomicAdd(sum, block);
  }
}
