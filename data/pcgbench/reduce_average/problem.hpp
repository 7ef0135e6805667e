// reduce_average: x (n doubles in [-10, 10]) -> mean.
namespace pcg {
struct Data {
  std::vector<double> x;
  double out = 0.0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  return Data{uniform_vector(rng, n, -10.0, 10.0), 0.0};
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::average(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::average(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const double*> x = kview(d.x);
  d.out = ::average(x);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x), average(1, 0.0);
  ::average<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), average.ptr);
  PCG_GPU_SYNC();
  d.out = average.first();
#endif
}
inline double& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_scalar(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.x.resize(keep); return true; }
}  // namespace pcg
