// scan_sum_of_prefix_sums: n whole numbers in [-100, 100] stored as doubles -> the sum of their prefix sums
// (x[i] counts n - i times). Every partial sum of any summation order is a whole number far below 2^53, so
// each correct order gives the exact answer; the comparison allows 1e-6 (absolute), as ParEval's does.
namespace pcg {
struct Data {
  std::vector<double> x;
  double out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x.resize(n);
  for (auto& v : d.x) v = (double)rng.integer(-100, 100);
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::sumOfPrefixSum(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::sumOfPrefixSum(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::sumOfPrefixSum(kview(d.x));
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x);
  DeviceArray<double> sum(1, 0.0);
  ::sumOfPrefixSum<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), sum.ptr);
  PCG_GPU_SYNC();
  d.out = sum.first();
#endif
}
inline double& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  if (!std::isnan(got.out) && std::fabs(want.out - got.out) <= 1e-6) return true;
  why = "expected " + show(want.out) + ", got " + show(got.out);
  return false;
}
inline bool truncate(Data& d, std::size_t keep) {
  d.x.resize(keep);
  return true;
}
}  // namespace pcg
