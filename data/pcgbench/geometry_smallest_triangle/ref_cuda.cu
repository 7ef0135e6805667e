  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= N) return;
  double best = 1e300;
  for (size_t j = i + 1; j < N; ++j) {
    const double bx = points[j].x - points[i].x, by = points[j].y - points[i].y;
    for (size_t k = j + 1; k < N; ++k) {
      const double cross = bx * (points[k].y - points[i].y) - (points[k].x - points[i].x) * by;
      best = fmin(best, fabs(cross));
    }
  }
  best /= 2.0;
  // Non-negative doubles order like their bit patterns, so an integer atomicMin is a double atomicMin.
  atomicMin(reinterpret_cast<unsigned long long *>(area), (unsigned long long)__double_as_longlong(best));
}
