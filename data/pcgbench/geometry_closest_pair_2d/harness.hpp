// geometry_closest_pair_2d: n points uniform in [0, 10^6)^2 -> the smallest pairwise distance; a pair 0.001
// apart is planted in the second half (so the answer at the small size depends on the second half).
namespace pcg {
struct Data {
  std::vector<Point> pts;
  double out = 0.0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.pts.resize(n);
  for (auto& p : d.pts) p = Point{rng.uniform(0.0, 1e6), rng.uniform(0.0, 1e6)};
  const std::size_t i = n / 2 + (std::size_t)rng.integer(0, (long long)(n - n / 2 - 2));
  d.pts[i + 1] = Point{d.pts[i].x + 0.0006, d.pts[i].y - 0.0008};
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::closestPair(d.pts); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::closestPair(d.pts);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const Point*> points = kview(d.pts);
  d.out = ::closestPair(points);
#elif defined(PCG_GPU)
  DeviceArray<Point> pts(d.pts);
  DeviceArray<double> dist(1, std::numeric_limits<double>::max());
  ::closestPair<<<blocks_for(d.pts.size()), kBlock>>>(pts.ptr, d.pts.size(), dist.ptr);
  PCG_GPU_SYNC();
  d.out = dist.first();
#endif
}
inline double& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_scalar(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.pts.resize(keep); return true; }
}  // namespace pcg
