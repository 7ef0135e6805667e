// geometry_smallest_triangle: n points uniform in [0, 100)^2 -> the smallest triangle area (O(n^3) triples).
namespace pcg {
struct Data {
  std::vector<Point> pts;
  double out = 0.0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.pts.resize(n);
  for (auto& p : d.pts) p = Point{rng.uniform(0.0, 100.0), rng.uniform(0.0, 100.0)};
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::smallestArea(d.pts); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::smallestArea(d.pts);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const Point*> points = kview(d.pts);
  d.out = ::smallestArea(points);
#elif defined(PCG_GPU)
  DeviceArray<Point> pts(d.pts);
  DeviceArray<double> area(1, std::numeric_limits<double>::max());
  ::smallestArea<<<blocks_for(d.pts.size()), kBlock>>>(pts.ptr, d.pts.size(), area.ptr);
  PCG_GPU_SYNC();
  d.out = area.first();
#endif
}
inline double& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_scalar(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.pts.resize(keep); return true; }
}  // namespace pcg
