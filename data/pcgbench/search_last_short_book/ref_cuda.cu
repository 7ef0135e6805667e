  // Block-wide maximum of the short books' indices in shared memory, then one atomic maximum per block
  // (0, the value on entry, stands for "none here").
  __shared__ unsigned long long part[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  part[threadIdx.x] = (i < N && books[i].pages < 100) ? (unsigned long long)i : 0ULL;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride && part[threadIdx.x + stride] > part[threadIdx.x]) part[threadIdx.x] = part[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0 && part[0] > 0)
    atomicMax(reinterpret_cast<unsigned long long *>(lastShortBookIndex), part[0]);
}
