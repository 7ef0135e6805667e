  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N && x[i] == val) found[0] = 1;  // every writer stores the same value
  if (i < M && y[i] == val) found[1] = 1;
}
