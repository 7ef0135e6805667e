  // Rank sort: the element of thread i goes to the position equal to the number of elements that sort
  // before it (ties broken by index, so positions are distinct).
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= N) return;
  const Point v = x[i];
  size_t pos = 0;
  for (size_t j = 0; j < N; ++j) {
    const bool before = (atan2(x[j].y, x[j].x) < atan2(v.y, v.x)) || (!(atan2(v.y, v.x) < atan2(x[j].y, x[j].x)) && j < i);
    pos += before ? 1 : 0;
  }
  sorted[pos] = v;
}
