  // Thread i finds its nearest following point (squared distances); non-negative doubles order like their
  // bit patterns, so an integer atomicMin on the bits is a double minimum.
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= numPoints) return;
  const Point a = points[i];
  double best = 1e300;
  for (size_t j = i + 1; j < numPoints; ++j) {
    const double dx = points[j].x - a.x, dy = points[j].y - a.y;
    best = fmin(best, dx * dx + dy * dy);
  }
  if (i + 1 < numPoints)
    atomicMin(reinterpret_cast<unsigned long long *>(distance), (unsigned long long)__double_as_longlong(sqrt(best)));
}
