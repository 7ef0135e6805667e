// reduce_xor: n ints in [0, 2^30] -> their XOR.
namespace pcg {
struct Data {
  std::vector<int> x;
  int out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, 0, 1 << 30);


  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::xor_all(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::xor_all(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::xor_all(kview(d.x));
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<int> result(1, (int)(0));
  ::xor_all<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), result.ptr);
  PCG_GPU_SYNC();
  d.out = (int)result.first();
#endif
}
inline int& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) {
  d.x.resize(keep);
  return true;
}
}  // namespace pcg
