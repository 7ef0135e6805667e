  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= N) return;
  int degree = 0;
  for (size_t j = 0; j < N; ++j) degree += A[i * N + j];
  atomicMax(maxDegree, degree);
}
