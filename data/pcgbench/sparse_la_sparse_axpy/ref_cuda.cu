  // Thread t < Nx places x[t], thread Nx + j places y[j] (grid-stride): an element's place in z is its own
  // position plus the number of indices below it in the other vector (binary search); an index present in both
  // is written by the x thread only.
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < Nx + Ny; t += stride) {
    const bool from_x = t < Nx;
    const size_t k = from_x ? t : t - Nx;
    const Element* other = from_x ? y : x;
    const size_t n_other = from_x ? Ny : Nx;
    const size_t index = from_x ? x[k].index : y[k].index;
    size_t lo = 0, hi = n_other;
    while (lo < hi) {
      const size_t mid = lo + (hi - lo) / 2;
      if (other[mid].index < index) lo = mid + 1; else hi = mid;
    }
    const bool shared = lo < n_other && other[lo].index == index;
    if (k + lo >= Nz) continue;
    if (from_x) z[k + lo] = Element{index, alpha * x[k].value + (shared ? y[lo].value : 0.0)};
    else if (!shared) z[k + lo] = y[k];
  }
}
