// transform_inverse_offset: n doubles in [0.1, 10] -> 1 - 1/x.
namespace pcg {
struct Data {
  std::vector<double> x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = uniform_vector(rng, n, 0.1, 10.0);

  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::oneMinusInverse(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::oneMinusInverse(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<double*> x = kview(d.x);
  ::oneMinusInverse(x);
#elif defined(PCG_GPU)

  DeviceArray<double> x(d.x);
  ::oneMinusInverse<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size());
  PCG_GPU_SYNC();
  x.to_host(d.x);
#endif
}
inline std::vector<double>& result(Data& d) { return d.x; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.x, got.x, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
