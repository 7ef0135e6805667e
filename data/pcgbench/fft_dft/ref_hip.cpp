  const size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (k >= N) return;
  double re = 0.0, im = 0.0;
  size_t m = 0;  // (j * k) mod N, kept without overflow
  for (size_t j = 0; j < N; ++j) {
    double s, c;
    sincospi(-2.0 * (double)m / (double)N, &s, &c);
    re += x[j] * c;
    im += x[j] * s;
    m += k;
    if (m >= N) m -= N;
  }
  output[k] = make_hipDoubleComplex(re, im);
}
