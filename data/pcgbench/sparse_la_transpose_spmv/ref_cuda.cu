  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= M) return;
  const double xi = x[i];
  for (size_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) atomicAdd(&y[col[k]], val[k] * xi);
}
