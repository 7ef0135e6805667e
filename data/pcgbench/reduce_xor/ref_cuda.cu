  // Each block counts its true values with __syncthreads_count; a block with an odd count flips *output
  // between 0.0 and 1.0 (a compare-and-swap on the double's bits, so concurrent flips are not lost).
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  const int count = __syncthreads_count(i < N && x[i]);
  if (threadIdx.x == 0 && (count & 1)) {
    unsigned long long *bits = reinterpret_cast<unsigned long long *>(output);
    unsigned long long old = *bits, assumed;
    do {
      assumed = old;
      const double flipped = __longlong_as_double((long long)assumed) != 0.0 ? 0.0 : 1.0;
      old = atomicCAS(bits, assumed, (unsigned long long)__double_as_longlong(flipped));
    } while (assumed != old);
  }
}
