  const size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  const size_t i = idx / N, j = idx % N;
  double sum = 0.0;
  for (size_t k = 0; k < K; ++k) sum += A[i * K + k] * B[k * N + j];
  C[idx] = sum;
}
