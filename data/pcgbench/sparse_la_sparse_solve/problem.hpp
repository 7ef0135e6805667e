// sparse_la_sparse_solve: an N x N strictly diagonally dominant COO matrix (0..N/50+2 off-diagonal entries per
// row at random columns, plus the diagonal), b in [-10, 10].
#include "drivers/sparse_la.hpp"
namespace pcg {
struct Data {
  std::size_t n = 0;
  std::vector<COOElement> A;
  std::vector<double> b, x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.n = n;
  d.A = random_coo(rng, n, n, n / 50 + 2, -1.0, 1.0, true);
  d.b = uniform_vector(rng, n, -10.0, 10.0);
  d.x.assign(n, 0.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::solveLinearSystem(d.A, d.b, d.x, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::solveLinearSystem(d.A, d.b, d.x, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const COOElement*> A = kview(d.A);
  Kokkos::View<const double*> b = kview(d.b);
  Kokkos::View<double*> x = kview(d.x);
  ::solveLinearSystem(A, b, x, d.n);
#elif defined(PCG_GPU)
  // The reference kernel keeps a dense copy of A in the device heap (default 8 MB): 1 GiB, set before the first
  // launch of the process (the limit cannot change once a kernel has used the heap).
#if defined(PCG_MODEL_CUDA)
  static const bool heap_set = cudaDeviceSetLimit(cudaLimitMallocHeapSize, std::size_t(1) << 30) == cudaSuccess;
#else
  static const bool heap_set = hipDeviceSetLimit(hipLimitMallocHeapSize, std::size_t(1) << 30) == hipSuccess;
#endif
  (void)heap_set;
  DeviceArray<COOElement> A(d.A);
  DeviceArray<double> b(d.b), x(d.x);
  ::solveLinearSystem<<<blocks_for(std::max<std::size_t>(d.A.size(), 1)), kBlock>>>(A.ptr, d.A.size(), b.ptr, x.ptr,
                                                                                     d.n);
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
