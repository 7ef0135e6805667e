// search_xor_contains: x and y have n values each, all in [0, 10^6); val = 10^6 + 7 is placed in the second
// half of x always and in y only when n is even (the timed size): the small size validates "true", the
// timed size "false".
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
  d.x[n / 2 + (std::size_t)rng.integer(0, (long long)(n - n / 2 - 1))] = d.val;
  if (n % 2 == 0) d.y[(std::size_t)rng.integer(0, (long long)d.y.size() - 1)] = d.val;
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
