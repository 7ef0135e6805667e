// search_xor_contains: x and y have n values each, all in [0, 10^6); val = 10^6 + 7 (outside their range) is placed in
// exactly one of x and y when the seed is odd (the answer true) and in both or in neither when it is even (false),
// which one drawn; the first placed goes to the region of its vector (an end, the first or the second half) the seed's
// next bits name. The validated inputs' seeds are consecutive, so they validate both answers and every region at every
// size; a timed input's seed is a hash of the run's secret, so neither the size, a parity nor one vector alone tells a
// body the answer.
namespace pcg {
struct Data {
  std::vector<int> x, y;
  int val = 1000007;
  bool out = false;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, 0, 999999);
  d.y = int_vector(rng, n, 0, 999999);
  const bool answer = (seed & 1) != 0, in_x = rng.integer(0, 1) == 1, in_y = answer != in_x;
  if (in_x) d.x[planted_position(rng, n, seed >> 1)] = d.val;
  if (in_y) d.y[planted_position(rng, n, in_x ? rng.next() : seed >> 1)] = d.val;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::xorContains(d.x, d.y, d.val); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::xorContains(d.x, d.y, d.val);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::xorContains(kview(d.x), kview(d.y), d.val);
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x), y(d.y);
  DeviceArray<unsigned char> found(1, (unsigned char)0);  // one bool, false on entry
  ::xorContains<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, y.ptr, d.x.size(), d.val, reinterpret_cast<bool*>(found.ptr));
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
  d.y.resize(keep);
  return true;
}
}  // namespace pcg
