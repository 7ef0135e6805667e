  // Combine within the block in shared memory, then one atomic update per block.
  __shared__ long long part[256];
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  part[threadIdx.x] = (i < N) ? (long long)(((points[i].x - cx) * (points[i].x - cx) + (points[i].y - cy) * (points[i].y - cy) <= r * r ? 1LL : 0LL)) : (long long)(0);
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] = part[threadIdx.x] + part[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    const long long block = part[0];
    atomicAdd(reinterpret_cast<unsigned long long *>(result), (unsigned long long)block);
  }
}
