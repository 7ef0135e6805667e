  // One row per iteration, summed in a local: accumulating straight into `part` (a reference the compiler
  // must assume may alias A) kept the inner loop scalar, slower on 2 threads than the serial baseline.
  int count = 0;
  Kokkos::parallel_reduce("edgeCount", N, KOKKOS_LAMBDA(const size_t i, int& part) {
    int row = 0;
    for (size_t j = 0; j < N; ++j) row += A(i, j);
    part += row;
  }, count);
  return count;
}
