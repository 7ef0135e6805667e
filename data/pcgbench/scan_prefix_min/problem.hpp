// scan_prefix_min: n floats drifting downwards (uniform minus a slope), so the running minimum keeps changing;
// the scan is in place (x is the result). Minima are exact: the comparison is exact.
namespace pcg {
struct Data {
  std::vector<float> x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x.resize(n);
  for (std::size_t i = 0; i < n; ++i) d.x[i] = (float)(rng.uniform(-50.0, 50.0) - 100.0 * (double)i / (double)n);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::partialMinimums(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::partialMinimums(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes the view by non-const reference: pass a named view.
  Kokkos::View<float*> x = kview(d.x);
  ::partialMinimums(x);
#elif defined(PCG_GPU)
  DeviceArray<float> x(d.x);
  ::partialMinimums<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size());
  PCG_GPU_SYNC();
  x.to_host(d.x);
#endif
}
inline std::vector<float>& result(Data& d) { return d.x; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.x, got.x, why, 0.0);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
