  int count = 0;
  const size_t total = N * N;
  for (size_t k = 0; k < total; ++k) count += A[k];
  return count;
}
