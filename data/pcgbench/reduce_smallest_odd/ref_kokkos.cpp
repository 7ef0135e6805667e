  // Blocks of 4096 values, each reduced in a local from a raw pointer: one element per call, the min went
  // through `part` (a reference into Kokkos' reduction storage) on every element, and even per block GCC
  // reloaded the view's data through the captured view: 0.5x the serial baseline on one thread, 1.0x on two.
  // Blocks suit Kokkos' host backends (OpenMP, Serial), the ones this suite builds.
  const size_t n = x.extent(0), block = 4096, blocks = (n + block - 1) / block;
  int acc = INT_MAX;
  Kokkos::parallel_reduce("smallestOdd", blocks, KOKKOS_LAMBDA(const size_t b, int& part) {
    const size_t begin = b * block, end = n < begin + block ? n : begin + block;
    const int* xs = x.data();
    int best = INT_MAX;
    for (size_t i = begin; i < end; ++i) {
      const int odd = (xs[i] & 1) != 0 ? xs[i] : INT_MAX;
      best = odd < best ? odd : best;
    }
    part = best < part ? best : part;
  }, Kokkos::Min<int>(acc));
  return acc;
}
