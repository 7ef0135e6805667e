// sparse_la_spmm: A is M x K, X is K x N (M = n, K = n + n/8 + 1, N = n - n/8), each row with 0..n/16+2
// entries at random columns; Y dense, zero on entry.
#include "drivers/sparse_la.hpp"
namespace pcg {
struct Data {
  std::size_t m = 0, k = 0, n = 0;
  std::vector<COOElement> A, X;
  std::vector<double> Y;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.m = n;
  d.k = n + n / 8 + 1;
  d.n = n - n / 8;
  d.A = random_coo(rng, d.m, d.k, n / 16 + 2, -1.0, 1.0);
  d.X = random_coo(rng, d.k, d.n, n / 16 + 2, -1.0, 1.0);
  d.Y.assign(d.m * d.n, 0.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::spmm(d.A, d.X, d.Y, d.m, d.k, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::spmm(d.A, d.X, d.Y, d.m, d.k, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const COOElement*> A = kview(d.A);
  Kokkos::View<const COOElement*> X = kview(d.X);
  Kokkos::View<double**> Y = kview2(d.Y, d.m, d.n);
  ::spmm(A, X, Y, d.m, d.k, d.n);
#elif defined(PCG_GPU)
  DeviceArray<COOElement> A(d.A), X(d.X);
  DeviceArray<double> Y(d.Y);
  ::spmm<<<blocks_for(std::max<std::size_t>(d.A.size(), 1)), kBlock>>>(A.ptr, d.A.size(), X.ptr, d.X.size(), Y.ptr,
                                                                        d.m, d.k, d.n);
  PCG_GPU_SYNC();
  Y.to_host(d.Y);
#endif
}
inline std::vector<double>& result(Data& d) { return d.Y; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.Y, got.Y, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
