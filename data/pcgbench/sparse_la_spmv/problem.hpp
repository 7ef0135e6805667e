// sparse_la_spmv: an M x N COO matrix (M = n, N = n + n/4 + 1), 0-12 entries per row at random columns.
#include "drivers/sparse_la.hpp"
namespace pcg {
struct Data {
  double alpha = 0, beta = 0;
  std::size_t m = 0, n = 0;
  std::vector<COOElement> A;
  std::vector<double> x, y;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.alpha = rng.uniform(0.5, 2.0);
  d.beta = rng.uniform(-1.0, 1.0);
  d.m = n;
  d.n = n + n / 4 + 1;
  d.A = random_coo(rng, d.m, d.n, 12, -1.0, 1.0);
  d.x = uniform_vector(rng, d.n, -1.0, 1.0);
  d.y = uniform_vector(rng, d.m, -1.0, 1.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::spmv(d.alpha, d.A, d.x, d.beta, d.y, d.m, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::spmv(d.alpha, d.A, d.x, d.beta, d.y, d.m, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const COOElement*> A = kview(d.A);
  Kokkos::View<const double*> x = kview(d.x);
  Kokkos::View<double*> y = kview(d.y);
  ::spmv(d.alpha, A, x, d.beta, y, d.m, d.n);
#elif defined(PCG_GPU)
  DeviceArray<COOElement> A(d.A);
  DeviceArray<double> x(d.x), y(d.y);
  ::spmv<<<blocks_for(std::max<std::size_t>(d.A.size(), 1)), kBlock>>>(d.alpha, A.ptr, d.A.size(), x.ptr, d.beta,
                                                                        y.ptr, d.m, d.n);
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
