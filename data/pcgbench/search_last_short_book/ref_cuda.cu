  // Combine within the block in shared memory, then one atomic update per block.
  __shared__ long long part[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  part[threadIdx.x] = (i < N) ? (long long)((books[i].pages < 100 ? (long long)i : -1LL)) : (long long)(-1LL);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] = (part[threadIdx.x + stride] > part[threadIdx.x] ? part[threadIdx.x + stride] : part[threadIdx.x]);
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const long long block = part[0];
    atomicMax(result, block);
  }
}
