// scan_prefix_sum: x (n doubles in [-1, 1]) -> inclusive prefix sums.
namespace pcg {
struct Data {
  std::vector<double> x, out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  return Data{uniform_vector(rng, n, -1.0, 1.0), std::vector<double>(n, 0.0)};
}
inline void call_baseline(Data& d) { pcg_baseline::prefixSum(d.x, d.out); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::prefixSum(d.x, d.out);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes output by non-const reference: pass a named view.
  Kokkos::View<double*> output = kview(d.out);
  ::prefixSum(kview(d.x), output);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x), out(d.out);
  ::prefixSum<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, out.ptr, d.x.size());
  PCG_GPU_SYNC();
  out.to_host(d.out);
#endif
}
inline std::vector<double>& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.out, got.out, why, 1e-8);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
