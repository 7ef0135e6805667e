  const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (k < nnz) y[idx[k]] += alpha * vals[k];  // positions are distinct: no conflicting writes
}
