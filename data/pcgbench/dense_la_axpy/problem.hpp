// dense_la_axpy: alpha in [-3, 3], x and y n doubles in [-1, 1] -> alpha x + y.
namespace pcg {
struct Data {
  std::vector<double> x, y;
  std::vector<double> z;
  double alpha{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = uniform_vector(rng, n, -1.0, 1.0);
  d.y = uniform_vector(rng, n, -1.0, 1.0);
  d.alpha = rng.uniform(-3.0, 3.0);
  d.z.assign(d.x.size(), double{});
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::axpy(d.alpha, d.x, d.y, d.z); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::axpy(d.alpha, d.x, d.y, d.z);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes non-const lvalue references: pass named views.
  Kokkos::View<const double*> x = kview(d.x), y = kview(d.y);
  Kokkos::View<double*> z = kview(d.z);
  ::axpy(d.alpha, x, y, z);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x);
  DeviceArray<double> y(d.y);
  DeviceArray<double> z(d.z);
  ::axpy<<<blocks_for(d.z.size()), kBlock>>>(d.alpha, x.ptr, y.ptr, z.ptr, d.z.size());
  PCG_GPU_SYNC();
  z.to_host(d.z);
#endif
}
inline std::vector<double>& result(Data& d) { return d.z; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.z, got.z, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
