  double sum = 0.0;
  Kokkos::parallel_reduce("average", x.extent(0), KOKKOS_LAMBDA(const size_t i, double& acc) { acc += x(i); }, sum);
  return sum / static_cast<double>(x.extent(0));
}
