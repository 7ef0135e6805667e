// transform_relu: x (n doubles in [-5, 5]) -> max(x, 0), in place.
namespace pcg {
struct Data {
  std::vector<double> x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  return Data{uniform_vector(rng, n, -5.0, 5.0)};
}
inline void call_baseline(Data& d) { pcg_baseline::relu(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::relu(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<double*> x = kview(d.x);
  ::relu(x);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x);
  ::relu<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size());
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
