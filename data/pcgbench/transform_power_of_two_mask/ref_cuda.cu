  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N) mask[i] = ((x[i] > 0 && (x[i] & (x[i] - 1)) == 0) ? 1 : 0);
}
