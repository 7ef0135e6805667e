  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= rows) return;
  double sum = 0.0;
  for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) sum += val[k] * x[col[k]];
  y[i] = alpha * sum + beta * y[i];
}
