// geometry_polygon_area: a star-shaped polygon: n vertices at sorted random angles and radii in [50, 100].
namespace pcg {
struct Data {
  std::vector<Point> points;
  double out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.points = [&] { std::vector<double> angle(n); for (auto& a : angle) a = rng.uniform(0.0, 2.0 * M_PI); std::sort(angle.begin(), angle.end()); std::vector<Point> v(n); for (std::size_t i = 0; i < n; ++i) { const double radius = rng.uniform(50.0, 100.0); v[i] = Point{radius * std::cos(angle[i]), radius * std::sin(angle[i])}; } return v; }();


  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::polygon_area(d.points); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::polygon_area(d.points);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::polygon_area(kview(d.points));
#elif defined(PCG_GPU)
  DeviceArray<Point> points(d.points);
  DeviceArray<double> result(1, (double)(0.0));
  ::polygon_area<<<blocks_for(d.points.size()), kBlock>>>(points.ptr, d.points.size(), result.ptr);
  PCG_GPU_SYNC();
  d.out = 0.5 * std::fabs(result.first());
#endif
}
inline double& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_scalar(want.out, got.out, why, kTol);
}
inline bool truncate(Data& d, std::size_t keep) {
  d.points.resize(keep);
  return true;
}
}  // namespace pcg
