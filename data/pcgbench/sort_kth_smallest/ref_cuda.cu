  // x[i] is the answer if fewer than k values are smaller and at least k are smaller or equal.
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= N) return;
  const int v = x[i];
  size_t less = 0, less_equal = 0;
  for (size_t j = 0; j < N; ++j) {
    less += (x[j] < v);
    less_equal += (x[j] <= v);
  }
  if (less < (size_t)k && less_equal >= (size_t)k) *kthSmallest = v;  // every writer writes the same value
}
