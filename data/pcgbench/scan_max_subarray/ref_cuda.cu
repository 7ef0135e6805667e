  // Thread i finds the best sum of a subarray starting at i (a running sum to the end), then one atomicMax.
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= N) return;
  long long running = 0, mine = x[i];
  for (size_t j = i; j < N; ++j) {
    running += x[j];
    mine = running > mine ? running : mine;
  }
  atomicMax(sum, (int)mine);
}
