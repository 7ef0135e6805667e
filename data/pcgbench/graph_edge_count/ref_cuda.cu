  // One thread per row.
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= N) return;
  int row = 0;
  for (size_t j = 0; j < N; ++j) row += A[i * N + j];
  atomicAdd(numEdges, row);
}
