// search_contains: n ints in [0, 10^6); the target (10^6 + 3, outside their range) is present, once, when the seed is
// odd, in the region of the vector (an end, the first or the second half) the seed's next bits name. The validated
// inputs' seeds are consecutive (seed, seed + 1, ...), so they validate both answers and every region at every size; a
// timed input's seed is a hash of the run's secret, so neither the size, a parity nor a place in the vector tells a
// body the answer.
namespace pcg {
struct Data {
  std::vector<int> x;
  int target{};
  bool out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, 0, 999999);
  d.target = 1000003;
  if (seed & 1) d.x[planted_position(rng, n, seed >> 1)] = d.target;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::contains(d.x, d.target); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::contains(d.x, d.target);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::contains(kview(d.x), d.target);
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<unsigned char> found(1, (unsigned char)0);  // one bool, false on entry
  ::contains<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), d.target, reinterpret_cast<bool*>(found.ptr));
  PCG_GPU_SYNC();
  d.out = found.first() != 0;
#endif
}
inline bool& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) {
  d.x.resize(keep);
  return true;
}
}  // namespace pcg
