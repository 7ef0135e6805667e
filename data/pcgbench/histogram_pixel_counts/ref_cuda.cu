  static_assert(sizeof(size_t) == sizeof(unsigned long long), "bins are updated as unsigned long long");
  __shared__ unsigned long long local[256];
  local[threadIdx.x] = 0;  // blockDim.x == 256: one bin per thread
  __syncthreads();
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N) atomicAdd(&local[image[i]], 1ULL);
  __syncthreads();
  if (local[threadIdx.x] != 0) atomicAdd(reinterpret_cast<unsigned long long *>(&bins[threadIdx.x]), local[threadIdx.x]);
}
