  // Thread i adds the length of every hull edge leaving point i counter-clockwise: the edge i -> j is on the
  // hull when no point lies to its right (points in general position). O(N^2) work per thread.
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
    if (edge) atomicAdd(perimeter, sqrt((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)));
  }
}
