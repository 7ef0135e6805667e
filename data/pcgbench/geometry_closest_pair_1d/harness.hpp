// geometry_closest_pair_1d: n positions uniform in [0, 10^9) -> the smallest gap; a pair 0.5 apart is planted
// in the second half (so the answer at the small size depends on the second half).
namespace pcg {
struct Data {
  std::vector<double> x;
  double out = 0.0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d{uniform_vector(rng, n, 0.0, 1e9), 0.0};
  const std::size_t i = n / 2 + (std::size_t)rng.integer(0, (long long)(n - n / 2 - 2));
  d.x[i + 1] = d.x[i] + 0.5;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::closestPair(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::closestPair(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const double*> x = kview(d.x);
  d.out = ::closestPair(x);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x), dist(1, std::numeric_limits<double>::max());
  ::closestPair<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), dist.ptr);
  PCG_GPU_SYNC();
  d.out = dist.first();
#endif
}
inline double& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_scalar(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.x.resize(keep); return true; }
}  // namespace pcg
