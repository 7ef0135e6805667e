// dense_la_gemm: A (n x (n+3)), B ((n+3) x (n-1)), entries in [-1, 1] -> C = A B.
namespace pcg {
struct Data {
  std::size_t m = 0, k = 0, n = 0;
  std::vector<double> A, B, C;
};
inline Data generate(std::size_t size, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.m = size;
  d.k = size + 3;
  d.n = size - 1;
  d.A = uniform_vector(rng, d.m * d.k, -1.0, 1.0);
  d.B = uniform_vector(rng, d.k * d.n, -1.0, 1.0);
  d.C = uniform_vector(rng, d.m * d.n, -1.0, 1.0);  // garbage that must be overwritten
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::gemm(d.A, d.B, d.C, d.m, d.k, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::gemm(d.A, d.B, d.C, d.m, d.k, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes non-const lvalue references: pass named views.
  Kokkos::View<const double**> A = kview2(d.A, d.m, d.k), B = kview2(d.B, d.k, d.n);
  Kokkos::View<double**> C = kview2(d.C, d.m, d.n);
  ::gemm(A, B, C, d.m, d.k, d.n);
#elif defined(PCG_GPU)
  DeviceArray<double> A(d.A), B(d.B), C(d.C);
  // An M x N grid of threads: 16 x 16 blocks, at least max(M, N) threads along both axes.
  const unsigned g = (unsigned)((std::max(d.m, d.n) + 15) / 16);
  ::gemm<<<dim3(g, g), dim3(16, 16)>>>(A.ptr, B.ptr, C.ptr, d.m, d.k, d.n);
  PCG_GPU_SYNC();
  C.to_host(d.C);
#endif
}
inline std::vector<double>& result(Data& d) { return d.C; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.C, got.C, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
