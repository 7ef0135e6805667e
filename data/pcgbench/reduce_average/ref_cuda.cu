  // Each block sums its slice in shared memory, then one atomic per block adds the slice's share of the mean.
  __shared__ double partial[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  partial[threadIdx.x] = (i < N) ? x[i] : 0.0;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(average, partial[0] / (double)N);
}
