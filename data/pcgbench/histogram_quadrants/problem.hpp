// histogram_quadrants: n points, x in [-4, 10), y in [-8, 3) (unequal quadrants) -> 4 counts.
namespace pcg {
struct Data {
  std::vector<Point> points;
  std::array<size_t, 4> bins{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.points = [&] { std::vector<Point> v(n); for (auto& p : v) p = Point{rng.uniform(-4.0, 10.0), rng.uniform(-8.0, 3.0)}; return v; }();
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::countQuadrants(d.points, d.bins); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::countQuadrants(d.points, d.bins);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes the bins by non-const reference: pass named views.
  Kokkos::View<const Point*> points = kview(d.points);
  Kokkos::View<size_t[4]> bins = Kokkos::View<size_t[4], Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(d.bins.data());
  ::countQuadrants(points, bins);
#elif defined(PCG_GPU)
  DeviceArray<Point> points(d.points);
  DeviceArray<size_t> bins(4, 0);
  ::countQuadrants<<<blocks_for(d.points.size()), kBlock>>>(points.ptr, d.points.size(), bins.ptr);
  PCG_GPU_SYNC();
  std::vector<size_t> host;
  bins.to_host(host);
  for (int k = 0; k < 4; ++k) d.bins[k] = host[k];
#endif
}
inline std::array<size_t, 4>& result(Data& d) { return d.bins; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_array(want.bins, got.bins, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
