  const int n = static_cast<int>(points.extent(0));
  double best = 1e300;
  Kokkos::parallel_reduce("smallest_area", Kokkos::RangePolicy<Kokkos::Schedule<Kokkos::Dynamic>>(0, n),
    KOKKOS_LAMBDA(const int i, double& local) {
      for (int j = i + 1; j < n; ++j) {
        const double bx = points(j).x - points(i).x, by = points(j).y - points(i).y;
        for (int k = j + 1; k < n; ++k) {
          const double cross = bx * (points(k).y - points(i).y) - (points(k).x - points(i).x) * by;
          const double twice = cross < 0 ? -cross : cross;
          if (twice < local) local = twice;
        }
      }
    }, Kokkos::Min<double>(best));
  return best / 2.0;
}
