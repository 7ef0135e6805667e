  // x(i) appears in n - i prefix sums.
  const size_t n = x.extent(0);
  double acc = 0.0;
  Kokkos::parallel_reduce("sum_of_prefix_sums", n, KOKKOS_LAMBDA(const size_t i, double& part) {
    part += x(i) * (double)(n - i);
  }, acc);
  return acc;
}
