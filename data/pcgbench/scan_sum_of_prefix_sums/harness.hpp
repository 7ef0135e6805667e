// scan_sum_of_prefix_sums: n ints in [-100, 100] -> the sum of their prefix sums (x[i] counts n - i times).
namespace pcg {
struct Data {
  std::vector<int> x;
  long long out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, -100, 100);


  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::sum_of_prefix_sums(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::sum_of_prefix_sums(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::sum_of_prefix_sums(kview(d.x));
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<long long> result(1, (long long)(0));
  ::sum_of_prefix_sums<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), result.ptr);
  PCG_GPU_SYNC();
  d.out = (long long)result.first();
#endif
}
inline long long& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) {
  d.x.resize(keep);
  return true;
}
}  // namespace pcg
