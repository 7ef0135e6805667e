// geometry_closest_pair_1d: n positions uniform in [0, 10^9) -> the smallest gap.
namespace pcg {
struct Data {
  std::vector<double> x;
  double out = 0.0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  return Data{uniform_vector(rng, n, 0.0, 1e9), 0.0};
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::closest_pair_1d(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::closest_pair_1d(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::closest_pair_1d(kview(d.x));
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x), dist(1, std::numeric_limits<double>::max());
  ::closest_pair_1d<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), dist.ptr);
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
