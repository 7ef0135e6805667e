// sort_points_by_angle: n points uniform in [-10, 10)^2 (distinct angles with probability 1).
inline bool operator==(const Point& a, const Point& b) { return a.x == b.x && a.y == b.y; }
inline std::ostream& operator<<(std::ostream& o, const Point& p) { return o << "(" << p.x << "," << p.y << ")"; }
inline void bump(Point& p) { p.x += 1.0; }
namespace pcg {
struct Data {
  std::vector<Point> points;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.points = [&] { std::vector<Point> v(n); for (auto& p : v) p = Point{rng.uniform(-10.0, 10.0), rng.uniform(-10.0, 10.0)}; return v; }();
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::sort_by_angle(d.points); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::sort_by_angle(d.points);
#elif defined(PCG_MODEL_KOKKOS)
  ::sort_by_angle(kview(d.points));
#elif defined(PCG_GPU)
  DeviceArray<Point> x(d.points), sorted(d.points);
  ::sort_by_angle<<<blocks_for(d.points.size()), kBlock>>>(x.ptr, sorted.ptr, d.points.size());
  PCG_GPU_SYNC();
  sorted.to_host(d.points);
#endif
}
inline std::vector<Point>& result(Data& d) { return d.points; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.points, got.points, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
