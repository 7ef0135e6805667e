  // Two-dimensional launch: x indexes the column j, y the row i; the grid may be larger than M x N.
  const size_t j = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const size_t i = blockIdx.y * (size_t)blockDim.y + threadIdx.y;
  if (i >= M || j >= N) return;
  double sum = 0.0;
  for (size_t k = 0; k < K; ++k) sum += A[i * K + k] * B[k * N + j];
  C[i * N + j] = sum;
}
