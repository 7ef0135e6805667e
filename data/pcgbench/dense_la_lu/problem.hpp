// dense_la_lu: an N x N matrix with entries in [-1, 1] plus N on the diagonal (strictly diagonally dominant).
namespace pcg {
struct Data {
  std::size_t n = 0;
  std::vector<double> A;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.n = n;
  d.A = uniform_vector(rng, n * n, -1.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) d.A[i * n + i] += (double)n;
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::luFactorize(d.A, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::luFactorize(d.A, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes a non-const lvalue reference: pass a named view.
  Kokkos::View<double**> A = kview2(d.A, d.n, d.n);
  ::luFactorize(A, d.n);
#elif defined(PCG_GPU)
  DeviceArray<double> A(d.A);
  // An N x N grid of threads: 16 x 16 blocks, at least N threads along both axes.
  const unsigned g = (unsigned)((d.n + 15) / 16);
  ::luFactorize<<<dim3(g, g), dim3(16, 16)>>>(A.ptr, d.n);
  PCG_GPU_SYNC();
  A.to_host(d.A);
#endif
}
inline std::vector<double>& result(Data& d) { return d.A; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.A, got.A, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
