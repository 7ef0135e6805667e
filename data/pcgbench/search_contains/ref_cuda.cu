  // Every thread that sees target stores the same value, so plain stores suffice.
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N && x[i] == target) *found = true;
}
