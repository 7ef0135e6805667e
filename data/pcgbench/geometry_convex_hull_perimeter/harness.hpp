// geometry_convex_hull_perimeter: n points in a disc of radius 100 (most of them interior) -> hull perimeter.
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
