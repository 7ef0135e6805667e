  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i < N && (x[i] & 1) == 0)
    atomicMin(reinterpret_cast<unsigned long long *>(firstEvenIndex), static_cast<unsigned long long>(i));
}
