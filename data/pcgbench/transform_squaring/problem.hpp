// transform_squaring: n ints in [-40000, 40000] -> their squares.
namespace pcg {
struct Data {
  std::vector<int> x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, -40000, 40000);

  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::squareEach(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::squareEach(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<int*> x = kview(d.x);
  ::squareEach(x);
#elif defined(PCG_GPU)

  DeviceArray<int> x(d.x);
  ::squareEach<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size());
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
