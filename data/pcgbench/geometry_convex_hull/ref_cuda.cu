  // Thread i keeps point i when it is a corner: some other point j makes i -> j a hull edge, i.e. no point
  // lies to the right of the line i -> j (points in general position). Interior points fail every candidate
  // edge after a few tests; a corner stops at its first edge.
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= numPoints || i >= hullSize) return;
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
      hull[i] = a;
      return;
    }
  }
}
