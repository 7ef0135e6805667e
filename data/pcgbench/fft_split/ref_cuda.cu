  // One output per thread, summed directly (a single launch cannot synchronise between FFT stages).
  const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (k >= N) return;
  double sr = 0.0, si = 0.0;
  size_t m = 0;  // (j * k) mod N
  for (size_t j = 0; j < N; ++j) {
    double s, c;
    sincospi(-1 * 2.0 * (double)m / (double)N, &s, &c);
    sr += x[j].x * c - x[j].y * s;
    si += x[j].x * s + x[j].y * c;
    m += k;
    if (m >= N) m -= N;
  }
  r[k] = sr;
  i[k] = si;
}
