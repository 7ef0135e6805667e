// dense_la_solve: A with entries in [-1, 1] plus N on the diagonal, b in [-10, 10] -> x with A x = b.
namespace pcg {
struct Data {
  std::size_t n = 0;
  std::vector<double> A, b, x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.n = n;
  d.A = uniform_vector(rng, n * n, -1.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) d.A[i * n + i] += (double)n;
  d.b = uniform_vector(rng, n, -10.0, 10.0);
  d.x.assign(n, 0.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::solveLinearSystem(d.A, d.b, d.x, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::solveLinearSystem(d.A, d.b, d.x, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes non-const lvalue references: pass named views.
  Kokkos::View<const double**> A = kview2(d.A, d.n, d.n);
  Kokkos::View<const double*> b = kview(d.b);
  Kokkos::View<double*> x = kview(d.x);
  ::solveLinearSystem(A, b, x, d.n);
#elif defined(PCG_GPU)
  DeviceArray<double> A(d.A), b(d.b), x(d.x);
  // An N x N grid of threads: 16 x 16 blocks, at least N threads along both axes.
  const unsigned g = (unsigned)((d.n + 15) / 16);
  ::solveLinearSystem<<<dim3(g, g), dim3(16, 16)>>>(A.ptr, b.ptr, x.ptr, d.n);
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
