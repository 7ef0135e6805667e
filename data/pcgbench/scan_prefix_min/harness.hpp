// scan_prefix_min: n doubles drifting downwards (uniform minus a slope), so the running minimum keeps changing.
namespace pcg {
struct Data {
  std::vector<double> x, out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x.resize(n);
  for (std::size_t i = 0; i < n; ++i) d.x[i] = rng.uniform(-50.0, 50.0) - 100.0 * (double)i / (double)n;
  d.out.assign(n, 0.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::prefix_min(d.x, d.out); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::prefix_min(d.x, d.out);
#elif defined(PCG_MODEL_KOKKOS)
  ::prefix_min(kview(d.x), kview(d.out));
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x), out(d.out);
  ::prefix_min<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, out.ptr, d.x.size());
  PCG_GPU_SYNC();
  out.to_host(d.out);
#endif
}
inline std::vector<double>& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.out, got.out, why, 0.0);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
