  const size_t n = x.extent(0);
  double acc = 1.0;
  Kokkos::parallel_reduce("productWithInverses", n, KOKKOS_LAMBDA(const size_t i, double& part) { part = part * ((i & 1) ? 1.0 / x(i) : x(i)); }, Kokkos::Prod<double>(acc));
  return acc;
}
