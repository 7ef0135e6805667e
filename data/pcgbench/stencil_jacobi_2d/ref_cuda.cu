  const size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (idx >= N * N) return;
  const size_t i = idx / N, j = idx % N;
  double sum = input[idx];
  if (i > 0) sum += input[idx - N];
  if (i + 1 < N) sum += input[idx + N];
  if (j > 0) sum += input[idx - 1];
  if (j + 1 < N) sum += input[idx + 1];
  output[idx] = sum / 5.0;
}
