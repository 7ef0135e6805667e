// scan_max_subarray: n ints in [-100, 99] (slightly negative on average, so the best run is a local one), with one
// strongly positive stretch of n/8 + 1 values planted at a start in the region (either end, the first or the second
// half of where it fits) the seed names, so that the answer is positive and, at most 160 * n, fits in an int, and no
// part of the vector holds it.
namespace pcg {
struct Data {
  std::vector<int> x;
  int out = 0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, -100, 99);
  const std::size_t len = n / 8 + 1, start = planted_position(rng, n - len + 1, seed);
  for (std::size_t i = start; i < start + len && i < n; ++i) d.x[i] += 60;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::maximumSubarray(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::maximumSubarray(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<int*> x = kview(d.x);  // ParEval's Kokkos signature takes a view of non-const int
  d.out = ::maximumSubarray(x);
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<int> sum(1, 0);
  ::maximumSubarray<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), sum.ptr);
  PCG_GPU_SYNC();
  d.out = sum.first();
#endif
}
inline int& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.x.resize(keep); return true; }
}  // namespace pcg
