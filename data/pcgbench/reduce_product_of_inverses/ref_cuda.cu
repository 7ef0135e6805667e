  // Combine within the block in shared memory, then one atomic update per block.
  __shared__ double part[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  part[threadIdx.x] = (i < N) ? (double)(((i & 1) ? 1.0 / x[i] : x[i])) : (double)(1.0);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] = part[threadIdx.x] * part[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const double block = part[0];
    unsigned long long *addr = reinterpret_cast<unsigned long long *>(product);
    unsigned long long old = *addr, assumed;
    do {
      assumed = old;
      old = atomicCAS(addr, assumed, (unsigned long long)__double_as_longlong(__longlong_as_double((long long)assumed) * block));
    } while (assumed != old);
  }
}
