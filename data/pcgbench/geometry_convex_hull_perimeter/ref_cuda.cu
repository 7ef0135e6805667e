  // Thread i adds the length of the hull edge leaving point i counter-clockwise, if point i is a corner: the
  // edge i -> j is on the hull when no point lies to its right (points in general position, so a corner has
  // exactly one such edge). Interior points fail every candidate edge after a few tests.
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= numPoints) return;
  const Point a = points[i];
  for (size_t j = 0; j < numPoints; ++j) {
    if (j == i) continue;
    const Point b = points[j];
    bool edge = true;
    for (size_t k = 0; k < numPoints && edge; ++k) {
      const double cross = (b.x - a.x) * (points[k].y - a.y) - (b.y - a.y) * (points[k].x - a.x);
      if (cross < 0) edge = false;
    }
    if (edge) {
      atomicAdd(perimeter, distance(a, b));
      return;
    }
  }
}
