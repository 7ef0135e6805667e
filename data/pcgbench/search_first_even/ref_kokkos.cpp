  const size_t n = x.extent(0);
  size_t first = n;
  Kokkos::parallel_reduce("first_even", n, KOKKOS_LAMBDA(const size_t i, size_t& best) {
    if ((x(i) & 1) == 0 && i < best) best = i;
  }, Kokkos::Min<size_t>(first));
  return first;
}
