  const size_t n = x.extent(0);
  long long acc = 0;
  Kokkos::parallel_reduce("sum_of_prefix_sums", n, KOKKOS_LAMBDA(const size_t i, long long& part) { part = part + (long long)x(i) * (long long)(n - i); }, acc);
  return acc;
}
