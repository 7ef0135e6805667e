  // x[i] appears in N - i prefix sums. Combine within the block in shared memory, then one atomic per block.
  __shared__ double part[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  part[threadIdx.x] = (i < N) ? x[i] * (double)(N - i) : 0.0;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] += part[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(sum, part[0]);
}
