  // A thread that finds val in one vector scans the other; if val is absent there, the answer is true. Every
  // writer stores the same value. val is rare, so few threads scan.
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= N) return;
  if (x[i] == val) {
    bool in_y = false;
    for (size_t j = 0; j < N && !in_y; ++j) in_y = (y[j] == val);
    if (!in_y) *found = true;
  }
  if (y[i] == val) {
    bool in_x = false;
    for (size_t j = 0; j < N && !in_x; ++j) in_x = (x[j] == val);
    if (!in_x) *found = true;
  }
}
