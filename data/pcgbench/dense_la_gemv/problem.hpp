// dense_la_gemv: A (n x (n/2 + 3), uniform in [-1, 1]) times x -> y.
namespace pcg {
struct Data {
  std::size_t m = 0, n = 0;
  std::vector<double> A, x, y;
};
inline Data generate(std::size_t size, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.m = size;
  d.n = size / 2 + 3;
  d.A = uniform_vector(rng, d.m * d.n, -1.0, 1.0);
  d.x = uniform_vector(rng, d.n, -1.0, 1.0);
  d.y.assign(d.m, 0.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::gemv(d.A, d.x, d.y, d.m, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::gemv(d.A, d.x, d.y, d.m, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes non-const lvalue references: pass named views.
  Kokkos::View<const double**> A = kview2(d.A, d.m, d.n);
  Kokkos::View<const double*> x = kview(d.x);
  Kokkos::View<double*> y = kview(d.y);
  ::gemv(A, x, y, d.m, d.n);
#elif defined(PCG_GPU)
  DeviceArray<double> A(d.A), x(d.x), y(d.y);
  ::gemv<<<blocks_for(d.m), kBlock>>>(A.ptr, x.ptr, y.ptr, d.m, d.n);
  PCG_GPU_SYNC();
  y.to_host(d.y);
#endif
}
inline std::vector<double>& result(Data& d) { return d.y; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.y, got.y, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
