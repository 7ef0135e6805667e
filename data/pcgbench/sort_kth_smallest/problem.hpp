// sort_kth_smallest: n ints in [-10^6, 10^6] (repeats likely at large n), k about n/3.
namespace pcg {
struct Data {
  std::vector<int> x;
  int k = 1;
  int out = 0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, -1000000, 1000000);
  d.k = (int)(n / 3) + (int)rng.integer(0, 7);
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::findKthSmallest(d.x, d.k); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::findKthSmallest(d.x, d.k);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::findKthSmallest(kview(d.x), d.k);
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x), kthSmallest(1, 0);
  ::findKthSmallest<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), d.k, kthSmallest.ptr);
  PCG_GPU_SYNC();
  d.out = kthSmallest.first();
#endif
}
inline int& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
// Dropping elements (keeping k) changes which value is k-th.
inline bool truncate(Data& d, std::size_t keep) {
  d.x.resize(keep);
  if ((std::size_t)d.k > keep) d.k = (int)keep;
  return true;
}
}  // namespace pcg
