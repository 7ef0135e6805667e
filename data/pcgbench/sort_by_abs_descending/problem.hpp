// sort_by_abs_descending: n ints in [-10^6, 10^6] (ties in absolute value occur).

namespace pcg {
struct Data {
  std::vector<int> x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, -1000000, 1000000);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::sort_by_abs_desc(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::sort_by_abs_desc(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  ::sort_by_abs_desc(kview(d.x));
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x), sorted(d.x);
  ::sort_by_abs_desc<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, sorted.ptr, d.x.size());
  PCG_GPU_SYNC();
  sorted.to_host(d.x);
#endif
}
inline std::vector<int>& result(Data& d) { return d.x; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.x, got.x, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
