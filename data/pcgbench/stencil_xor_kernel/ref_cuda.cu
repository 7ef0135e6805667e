  const size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (idx >= N * N) return;
  const size_t i = idx / N, j = idx % N;
  output[i * N + j] = ((i >= 1 ? input[(i - 1) * N + j] : 0) + (i + 1 < N ? input[(i + 1) * N + j] : 0) + (j >= 1 ? input[i * N + (j - 1)] : 0) + (j + 1 < N ? input[i * N + (j + 1)] : 0)) == 1 ? 1 : 0;
}
