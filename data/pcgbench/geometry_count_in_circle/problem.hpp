// geometry_count_in_circle: n points uniform in [-50, 50)^2, a circle of radius 10-30 near the origin -> count inside.
namespace pcg {
struct Data {
  std::vector<Point> points;
  double cx{};
  double cy{};
  double r{};
  long long out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.points = [&] { std::vector<Point> v(n); for (auto& p : v) p = Point{rng.uniform(-50.0, 50.0), rng.uniform(-50.0, 50.0)}; return v; }();
  d.cx = rng.uniform(-10.0, 10.0);
  d.cy = rng.uniform(-10.0, 10.0);
  d.r = rng.uniform(10.0, 30.0);

  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::count_in_circle(d.points, d.cx, d.cy, d.r); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::count_in_circle(d.points, d.cx, d.cy, d.r);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::count_in_circle(kview(d.points), d.cx, d.cy, d.r);
#elif defined(PCG_GPU)
  DeviceArray<Point> points(d.points);
  DeviceArray<long long> result(1, (long long)(0));
  ::count_in_circle<<<blocks_for(d.points.size()), kBlock>>>(points.ptr, d.points.size(), d.cx, d.cy, d.r, result.ptr);
  PCG_GPU_SYNC();
  d.out = (long long)result.first();
#endif
}
inline long long& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) {
  d.points.resize(keep);
  return true;
}
}  // namespace pcg
