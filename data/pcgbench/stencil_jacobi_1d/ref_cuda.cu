  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= N) return;
  const double left = i > 0 ? input[i - 1] : 0.0;
  const double right = i + 1 < N ? input[i + 1] : 0.0;
  output[i] = (left + input[i] + right) / 3.0;
}
