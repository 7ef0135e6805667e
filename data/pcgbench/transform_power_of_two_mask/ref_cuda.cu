  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N) mask[i] = isPowerOfTwo(x[i]);
}
