  const size_t n = points.extent(0);
  double acc = 0.0;
  Kokkos::parallel_reduce("polygon_area", n, KOKKOS_LAMBDA(const size_t i, double& part) { part = part + (points(i).x * points((i + 1) % n).y - points((i + 1) % n).x * points(i).y); }, acc);
  return 0.5 * std::fabs(acc);
}
