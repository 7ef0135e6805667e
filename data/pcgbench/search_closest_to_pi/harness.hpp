// search_closest_to_pi: n doubles in [-100, 100] -> index of the value closest to pi; a value within 1e-9 of
// pi is planted in the second half.
namespace pcg {
struct Data {
  std::vector<double> x;
  std::size_t out = 0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d{uniform_vector(rng, n, -100.0, 100.0), 0};
  d.x[n / 2 + (std::size_t)rng.integer(0, (long long)(n - n / 2 - 1))] = M_PI + 1e-9;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::findClosestToPi(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::findClosestToPi(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::findClosestToPi(kview(d.x));
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x);
  DeviceArray<size_t> closestToPiIndex(1, 0);
  ::findClosestToPi<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), closestToPiIndex.ptr);
  PCG_GPU_SYNC();
  d.out = closestToPiIndex.first();
#endif
}
inline std::size_t& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.x.resize(keep); return true; }
}  // namespace pcg
