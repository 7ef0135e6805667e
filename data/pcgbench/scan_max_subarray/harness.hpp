// scan_max_subarray: n ints in [-100, 99] (slightly negative on average, so the best run is a local one),
// with one strongly positive stretch planted in the second half.
namespace pcg {
struct Data {
  std::vector<int> x;
  long long out = 0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, -100, 99);
  const std::size_t start = n / 2 + (std::size_t)rng.integer(0, (long long)(n / 4)), len = n / 8 + 1;
  for (std::size_t i = start; i < start + len && i < n; ++i) d.x[i] += 60;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::max_subarray_sum(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::max_subarray_sum(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::max_subarray_sum(kview(d.x));
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<long long> best(1, std::numeric_limits<long long>::min());
  ::max_subarray_sum<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), best.ptr);
  PCG_GPU_SYNC();
  d.out = best.first();
#endif
}
inline long long& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.x.resize(keep); return true; }
}  // namespace pcg
