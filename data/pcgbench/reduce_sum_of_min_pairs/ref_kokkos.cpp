  const size_t n = x.extent(0);
  double acc = 0.0;
  Kokkos::parallel_reduce("sumOfMinimumElements", n, KOKKOS_LAMBDA(const size_t i, double& part) { part = part + (x(i) < y(i) ? x(i) : y(i)); }, acc);
  return acc;
}
