// transform_negate_odds: n ints in [-10^5, 10^5]; odd values negated, even values halved.
namespace pcg {
struct Data {
  std::vector<int> x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, -100000, 100000);

  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::negateOddsAndHalveEvens(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::negateOddsAndHalveEvens(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<int*> x = kview(d.x);
  ::negateOddsAndHalveEvens(x);
#elif defined(PCG_GPU)

  DeviceArray<int> x(d.x);
  ::negateOddsAndHalveEvens<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size());
  PCG_GPU_SYNC();
  x.to_host(d.x);
#endif
}
inline std::vector<int>& result(Data& d) { return d.x; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.x, got.x, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
