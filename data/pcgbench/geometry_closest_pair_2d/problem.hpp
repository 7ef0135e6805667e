// geometry_closest_pair_2d: n points uniform in [0, 10^6)^2 -> the smallest pairwise distance. A pair 0.001-0.1 apart
// (the distance and its direction drawn) is planted: its first point in the region of the vector (an end, the first or
// the second half) the seed names, its second anywhere but next to it. The natural closest pair is about 0.8 apart at
// the timed size and far more at the small one, so the planted pair is mostly the answer, and neither its value nor its
// place is known to a body.
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
  const std::size_t i = planted_position(rng, n, seed);
  const std::size_t j = (i + 2 + (std::size_t)rng.integer(0, (long long)n - 4)) % n;  // neither i nor i +- 1
  const double distance = rng.uniform(0.001, 0.1), angle = rng.uniform(0.0, 2.0 * M_PI);
  d.pts[j] = Point{d.pts[i].x + distance * std::cos(angle), d.pts[i].y + distance * std::sin(angle)};
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
