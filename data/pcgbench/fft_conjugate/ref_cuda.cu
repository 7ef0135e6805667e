  // In place in one launch: blocks cannot synchronise with each other, so block 0 alone runs an iterative
  // radix-2 transform (bit-reversal permutation, then log2(N) stages of butterflies); its threads stride
  // over the element pairs and barriers separate the stages. The other blocks return at once.
  if (blockIdx.x != 0) return;
  const size_t t0 = threadIdx.x, T = blockDim.x;
  int bits = 0;
  while ((size_t(1) << bits) < N) ++bits;
  for (size_t j = t0; j < N; j += T) {
    size_t rev = 0;
    for (int b = 0; b < bits; ++b) rev |= ((j >> b) & 1) << (bits - 1 - b);
    if (j < rev) {  // each pair is swapped once, by the thread that owns its smaller index
      const auto tmp = x[j];
      x[j] = x[rev];
      x[rev] = tmp;
    }
  }
  __syncthreads();
  for (size_t len = 2; len <= N; len <<= 1) {
    const size_t half = len / 2;
    for (size_t t = t0; t < N / 2; t += T) {
      const size_t start = (t / half) * len, k = t % half;
      double s, c;
      sincospi(-1 * 2.0 * (double)k / (double)len, &s, &c);
      const double ur = x[start + k].x, ui = x[start + k].y;
      const double vr = x[start + k + half].x * c - x[start + k + half].y * s;
      const double vi = x[start + k + half].x * s + x[start + k + half].y * c;
      x[start + k].x = ur + vr;
      x[start + k].y = ui + vi;
      x[start + k + half].x = ur - vr;
      x[start + k + half].y = ui - vi;
    }
    __syncthreads();
  }
  for (size_t k = t0; k < N; k += T) x[k].y = -x[k].y;  // the conjugate
}
