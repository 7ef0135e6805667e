  const size_t n = points.extent(0);
  long long acc = 0;
  Kokkos::parallel_reduce("count_in_circle", n, KOKKOS_LAMBDA(const size_t i, long long& part) { part = part + ((points(i).x - cx) * (points(i).x - cx) + (points(i).y - cy) * (points(i).y - cy) <= r * r ? 1LL : 0LL); }, acc);
  return acc;
}
