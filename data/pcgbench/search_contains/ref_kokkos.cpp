  const size_t n = x.extent(0);
  int acc = 0;
  Kokkos::parallel_reduce("contains", n, KOKKOS_LAMBDA(const size_t i, int& part) { part = (part || (x(i) == target)); }, Kokkos::LOr<int>(acc));
  return acc != 0;
}
