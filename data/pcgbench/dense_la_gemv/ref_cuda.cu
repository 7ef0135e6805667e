  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= M) return;
  double sum = 0.0;
  for (size_t j = 0; j < N; ++j) sum += A[i * N + j] * x[j];
  y[i] = sum;
}
