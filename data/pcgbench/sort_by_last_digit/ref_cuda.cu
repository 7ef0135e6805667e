  // Rank sort: the element of thread i goes to the position equal to the number of elements that sort
  // before it (ties broken by index, so positions are distinct).
  const size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  if (i >= N) return;
  const int v = x[i];
  size_t pos = 0;
  for (size_t j = 0; j < N; ++j) {
    const bool before = ((x[j] % 10 < v % 10 || (x[j] % 10 == v % 10 && x[j] < v))) || (!((v % 10 < x[j] % 10 || (v % 10 == x[j] % 10 && v < x[j]))) && j < i);
    pos += before ? 1 : 0;
  }
  sorted[pos] = v;
}
