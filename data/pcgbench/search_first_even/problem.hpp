// search_first_even: odd numbers, with the first even one in the region of the vector (an end, the first or the second
// half) the seed names, so that no part of the vector holds the answer, and a few more evens after it.
namespace pcg {
struct Data {
  std::vector<int> x;
  std::size_t out = 0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x.resize(n);
  for (auto& v : d.x) v = 2 * (int)rng.integer(-1000, 1000) + 1;
  const std::size_t first = planted_position(rng, n, seed);
  for (std::size_t i = first; i < n; i += 1 + (std::size_t)rng.integer(0, (long long)n / 8)) d.x[i] -= 1;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::findFirstEven(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::findFirstEven(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::findFirstEven(kview(d.x));
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<size_t> firstEvenIndex(1, d.x.size());
  ::findFirstEven<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), firstEvenIndex.ptr);
  PCG_GPU_SYNC();
  d.out = firstEvenIndex.first();
#endif
}
inline std::size_t& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.x.resize(keep); return true; }
}  // namespace pcg
