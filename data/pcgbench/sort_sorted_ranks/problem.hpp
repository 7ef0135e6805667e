// sort_sorted_ranks: n distinct floats in random order: ascending multiples of 0.25 around 0 whose gaps (0.25 to 1) are
// drawn, so that a value's rank follows from the others and not from the value itself (with equal gaps, 4 x + n / 2 was
// the rank); at most 2.5 n / 4 in magnitude, so exactly representable.
namespace pcg {
struct Data {
  std::vector<float> x;
  std::vector<size_t> out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x.resize(n);
  long long quarters = -(long long)(n * 5 / 4);
  for (std::size_t i = 0; i < n; ++i, quarters += rng.integer(1, 4)) d.x[i] = 0.25f * (float)quarters;
  for (std::size_t i = n; i-- > 1;) std::swap(d.x[i], d.x[(std::size_t)rng.integer(0, (long long)i)]);
  d.out.assign(n, 0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::ranks(d.x, d.out); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::ranks(d.x, d.out);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const float*> x = kview(d.x);
  Kokkos::View<size_t*> ranks = kview(d.out);
  ::ranks(x, ranks);
#elif defined(PCG_GPU)
  DeviceArray<float> x(d.x);
  DeviceArray<size_t> ranks(d.out);
  ::ranks<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, ranks.ptr, d.x.size());
  PCG_GPU_SYNC();
  ranks.to_host(d.out);
#endif
}
inline std::vector<size_t>& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.out, got.out, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
