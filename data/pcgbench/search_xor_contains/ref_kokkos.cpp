  const int *const *yp = y.data();  // host pointers: the default execution space is the host here
  int in_x = 0, in_y = 0;
  Kokkos::parallel_reduce("in_x", x.extent(0), KOKKOS_LAMBDA(const size_t i, int& f) { f |= (x(i) == val); },
                          Kokkos::BOr<int>(in_x));
  Kokkos::parallel_reduce("in_y", y.size(), KOKKOS_LAMBDA(const size_t i, int& f) { f |= (*yp[i] == val); },
                          Kokkos::BOr<int>(in_y));
  return (in_x != 0) != (in_y != 0);
}
