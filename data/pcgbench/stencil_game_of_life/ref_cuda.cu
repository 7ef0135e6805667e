  const size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (idx >= N * N) return;
  const size_t i = idx / N, j = idx % N;
  const int live = (i >= 1 && j >= 1 ? input[(i - 1) * N + (j - 1)] : 0) + (i >= 1 ? input[(i - 1) * N + j] : 0) + (i >= 1 && j + 1 < N ? input[(i - 1) * N + (j + 1)] : 0) + (j >= 1 ? input[i * N + (j - 1)] : 0) + (j + 1 < N ? input[i * N + (j + 1)] : 0) + (i + 1 < N && j >= 1 ? input[(i + 1) * N + (j - 1)] : 0) + (i + 1 < N ? input[(i + 1) * N + j] : 0) + (i + 1 < N && j + 1 < N ? input[(i + 1) * N + (j + 1)] : 0);
  output[i * N + j] = (live == 3 || (live == 2 && input[i * N + j] == 1)) ? 1 : 0;
}
