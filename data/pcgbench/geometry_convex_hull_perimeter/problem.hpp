// geometry_convex_hull_perimeter: n points in a disc of radius 100 (most of them interior) -> hull perimeter. One
// more, 101-110 from the centre (a corner), goes to the region of the vector (an end, the first or the second half)
// the seed names: a body that skips the first and last points, or reads half of them, misses a corner.
namespace pcg {
struct Data {
  std::vector<Point> pts;
  double out = 0.0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.pts.reserve(n);
  while (d.pts.size() < n) {
    const double px = rng.uniform(-100.0, 100.0), py = rng.uniform(-100.0, 100.0);
    if (px * px + py * py <= 1e4) d.pts.push_back(Point{px, py});
  }
  // Region 0 the first index, 1 the last, 2 the first half, 3 the second half, as the seed says: consecutive
  // seeds (the validated inputs') cover all four, a timed input's hashed seed draws one.
  const std::size_t half = n / 2, at = seed % 4 == 0 ? 0 : seed % 4 == 1 ? n - 1
                                     : seed % 4 == 2 ? (std::size_t)rng.integer(0, (long long)half - 1)
                                                     : half + (std::size_t)rng.integer(0, (long long)(n - half) - 1);
  const double radius = rng.uniform(101.0, 110.0), angle = rng.uniform(0.0, 2.0 * M_PI);
  d.pts[at] = Point{radius * std::cos(angle), radius * std::sin(angle)};
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::convexHullPerimeter(d.pts); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::convexHullPerimeter(d.pts);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const Point*> points = kview(d.pts);
  d.out = ::convexHullPerimeter(points);
#elif defined(PCG_GPU)
  DeviceArray<Point> pts(d.pts);
  DeviceArray<double> perimeter(1, 0.0);
  ::convexHullPerimeter<<<blocks_for(d.pts.size()), kBlock>>>(pts.ptr, d.pts.size(), perimeter.ptr);
  PCG_GPU_SYNC();
  d.out = perimeter.first();
#endif
}
inline double& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_scalar(want.out, got.out, why);
}
// Dropping points (here: the second half) shrinks the hull.
inline bool truncate(Data& d, std::size_t keep) { d.pts.resize(keep); return true; }
}  // namespace pcg
