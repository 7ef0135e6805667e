  static_assert(sizeof(size_t) == sizeof(unsigned long long), "bins are updated as unsigned long long");
  // Count in shared memory per block, then one atomic per bin per block.
  __shared__ unsigned long long local[10];
  if (threadIdx.x < 10) local[threadIdx.x] = 0;
  __syncthreads();
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N) atomicAdd(&local[(int)(x[i] / 10.0)], 1ULL);
  __syncthreads();
  if (threadIdx.x < 10 && local[threadIdx.x] != 0) atomicAdd(reinterpret_cast<unsigned long long *>(&bins[threadIdx.x]), local[threadIdx.x]);
}
