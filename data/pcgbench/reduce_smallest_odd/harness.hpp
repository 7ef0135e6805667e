// reduce_smallest_odd: n ints in [-10^6, 10^6], the smallest odd one (-2000001) placed in the second half.
namespace pcg {
struct Data {
  std::vector<int> x;
  int out{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, -1000000, 1000000);

  d.x[n / 2 + (std::size_t)rng.integer(0, (long long)(n - n / 2 - 1))] = -2000001;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::smallest_odd(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::smallest_odd(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::smallest_odd(kview(d.x));
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<int> result(1, (int)(INT_MAX));
  ::smallest_odd<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), result.ptr);
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
