// geometry_convex_hull: n points in a disc of radius 100 centred at (300, 200) (most of them interior, none at
// the origin) -> the hull's corners, compared as a set. One more, 101-110 from the centre (a corner), goes to the
// region of the vector (an end, the first or the second half) the seed names: a body that skips the first and last
// points, or reads half of them, misses a corner.
inline bool operator==(const Point& a, const Point& b) { return a.x == b.x && a.y == b.y; }
inline std::ostream& operator<<(std::ostream& o, const Point& p) { return o << "(" << p.x << "," << p.y << ")"; }
inline void bump(Point& p) { p.x += 1.0; }
namespace pcg {
struct Data {
  std::vector<Point> pts;
  std::vector<Point> hull;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.pts.reserve(n);
  while (d.pts.size() < n) {
    const double px = rng.uniform(-100.0, 100.0), py = rng.uniform(-100.0, 100.0);
    if (px * px + py * py <= 1e4) d.pts.push_back(Point{300.0 + px, 200.0 + py});
  }
  // Region 0 the first index, 1 the last, 2 the first half, 3 the second half, as the seed says: consecutive
  // seeds (the validated inputs') cover all four, a timed input's hashed seed draws one.
  const std::size_t half = n / 2, at = seed % 4 == 0 ? 0 : seed % 4 == 1 ? n - 1
                                     : seed % 4 == 2 ? (std::size_t)rng.integer(0, (long long)half - 1)
                                                     : half + (std::size_t)rng.integer(0, (long long)(n - half) - 1);
  const double radius = rng.uniform(101.0, 110.0), angle = rng.uniform(0.0, 2.0 * M_PI);
  d.pts[at] = Point{300.0 + radius * std::cos(angle), 200.0 + radius * std::sin(angle)};
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::convexHull(d.pts, d.hull); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::convexHull(d.pts, d.hull);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const Point*> points = kview(d.pts);
  Kokkos::View<Point*> hull("hull", 0);
  ::convexHull(points, hull);
  Kokkos::fence();
  d.hull.assign(hull.data(), hull.data() + hull.extent(0));
#elif defined(PCG_GPU)
  const std::size_t n = d.pts.size();
  DeviceArray<Point> pts(d.pts), hull(n, Point{0.0, 0.0});
  ::convexHull<<<blocks_for(n), kBlock>>>(pts.ptr, n, hull.ptr, n);
  PCG_GPU_SYNC();
  std::vector<Point> all;
  hull.to_host(all);
  d.hull.clear();
  for (const Point& p : all)
    if (!(p.x == 0.0 && p.y == 0.0)) d.hull.push_back(p);
#endif
}
inline std::vector<Point>& result(Data& d) { return d.hull; }
// The corners as a set: both lists sorted by (x, y), then compared point by point (corners are copies of
// input points, so exactly).
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  auto sorted = [](std::vector<Point> v) {
    std::sort(v.begin(), v.end(), [](const Point& a, const Point& b) { return a.x < b.x || (a.x == b.x && a.y < b.y); });
    return v;
  };
  const std::vector<Point> w = sorted(want.hull), g = sorted(got.hull);
  if (w.size() != g.size()) {
    why = "expected " + std::to_string(w.size()) + " hull corners, got " + std::to_string(g.size());
    return false;
  }
  for (std::size_t i = 0; i < w.size(); ++i)
    if (!(w[i] == g[i])) {
      why = "corner " + std::to_string(i) + " in (x, y) order: expected " + show(w[i]) + ", got " + show(g[i]);
      return false;
    }
  return true;
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
