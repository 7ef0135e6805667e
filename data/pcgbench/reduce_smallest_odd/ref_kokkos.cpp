  const size_t n = x.extent(0);
  int acc = INT_MAX;
  Kokkos::parallel_reduce("smallestOdd", n, KOKKOS_LAMBDA(const size_t i, int& part) { part = (((x(i) & 1) != 0 ? x(i) : INT_MAX) < part ? ((x(i) & 1) != 0 ? x(i) : INT_MAX) : part); }, Kokkos::Min<int>(acc));
  return acc;
}
