  int count = 0;
  Kokkos::parallel_reduce("edgeCount", N, KOKKOS_LAMBDA(const size_t i, int& part) {
    for (size_t j = 0; j < N; ++j) part += A(i, j);
  }, count);
  return count;
}
