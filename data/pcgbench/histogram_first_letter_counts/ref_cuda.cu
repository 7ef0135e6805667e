  // Count in shared memory per block, then one global atomic per letter per block.
  static_assert(sizeof(size_t) == sizeof(unsigned long long), "bins are updated as unsigned long long");
  __shared__ unsigned long long local[26];
  if (threadIdx.x < 26) local[threadIdx.x] = 0;
  __syncthreads();
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N) atomicAdd(&local[s[i][0] - 'a'], 1ULL);
  __syncthreads();
  if (threadIdx.x < 26 && local[threadIdx.x] != 0)
    atomicAdd(reinterpret_cast<unsigned long long *>(&bins[threadIdx.x]), local[threadIdx.x]);
}
