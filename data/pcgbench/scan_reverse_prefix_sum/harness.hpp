// scan_reverse_prefix_sum: n ints in [-100, 100] -> suffix sums (exact integer comparison).
namespace pcg {
struct Data {
  std::vector<int> x, out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  return Data{int_vector(rng, n, -100, 100), std::vector<int>(n, 0)};
}
inline void call_baseline(Data& d) { pcg_baseline::reverse_prefix_sum(d.x, d.out); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::reverse_prefix_sum(d.x, d.out);
#elif defined(PCG_MODEL_KOKKOS)
  ::reverse_prefix_sum(kview(d.x), kview(d.out));
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x), out(d.out);
  ::reverse_prefix_sum<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, out.ptr, d.x.size());
  PCG_GPU_SYNC();
  out.to_host(d.out);
#endif
}
inline std::vector<int>& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.out, got.out, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
