// transform_power_of_two_mask: n ints, every third a power of two, the rest in [-100, 10^5] -> 0/1 mask.
namespace pcg {
struct Data {
  std::vector<int> x;
  std::vector<int> mask;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = [&] { auto v = int_vector(rng, n, -100, 100000); for (std::size_t i = 0; i < n; i += 3) v[i] = 1 << rng.integer(0, 20); return v; }();

  d.mask.assign(d.x.size(), int{});
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::power_of_two_mask(d.x, d.mask); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::power_of_two_mask(d.x, d.mask);
#elif defined(PCG_MODEL_KOKKOS)
  ::power_of_two_mask(kview(d.x), kview(d.mask));
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<int> mask(d.mask);
  ::power_of_two_mask<<<blocks_for(d.mask.size()), kBlock>>>(x.ptr, mask.ptr, d.mask.size());
  PCG_GPU_SYNC();
  mask.to_host(d.mask);
#endif
}
inline std::vector<int>& result(Data& d) { return d.mask; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.mask, got.mask, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
