// scan_reverse_prefix_sum: n ints in [-100, 100] -> the inclusive prefix sums of x read from its end
// (output[i] = x[n-1] + ... + x[n-1-i]; exact integer comparison).
namespace pcg {
struct Data {
  std::vector<int> x, out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  return Data{int_vector(rng, n, -100, 100), std::vector<int>(n, 0)};
}
inline void call_baseline(Data& d) { pcg_baseline::reversePrefixSum(d.x, d.out); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::reversePrefixSum(d.x, d.out);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes output by non-const reference: pass a named view.
  Kokkos::View<int*> output = kview(d.out);
  ::reversePrefixSum(kview(d.x), output);
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x), out(d.out);
  ::reversePrefixSum<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, out.ptr, d.x.size());
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
