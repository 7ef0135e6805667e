  const size_t idx = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (idx >= M * N) return;
  const size_t i = idx / N, j = idx % N;
  double sum = 0.0;
  for (size_t e = row_ptr[i]; e < row_ptr[i + 1]; ++e) sum += val[e] * B[col[e] * N + j];
  C[idx] = sum;
  (void)K;
}
