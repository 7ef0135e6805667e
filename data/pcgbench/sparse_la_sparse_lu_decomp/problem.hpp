// sparse_la_sparse_lu_decomp: an N x N strictly diagonally dominant COO matrix (0..N/50+2 off-diagonal entries
// per row at random columns, plus the diagonal). L and U are dense N x N row-major matrices (ParEval's
// interface), all 0 on entry, compared whole (the zeros above L's diagonal and below U's too).
#include "drivers/sparse_la.hpp"
namespace pcg {
struct Data {
  std::size_t n = 0;
  std::vector<COOElement> A;
  std::vector<double> L, U;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.n = n;
  d.A = random_coo(rng, n, n, n / 50 + 2, -1.0, 1.0, true);
  d.L.assign(n * n, 0.0);
  d.U.assign(n * n, 0.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::luFactorize(d.A, d.L, d.U, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::luFactorize(d.A, d.L, d.U, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const COOElement*> A = kview(d.A);
  Kokkos::View<double**> L = kview2(d.L, d.n, d.n);
  Kokkos::View<double**> U = kview2(d.U, d.n, d.n);
  ::luFactorize(A, L, U, d.n);
#elif defined(PCG_GPU)
  DeviceArray<COOElement> A(d.A);
  DeviceArray<double> L(d.L), U(d.U);
  ::luFactorize<<<blocks_for(std::max<std::size_t>(d.A.size(), 1)), kBlock>>>(A.ptr, d.A.size(), L.ptr, U.ptr, d.n);
  PCG_GPU_SYNC();
  L.to_host(d.L);
  U.to_host(d.U);
#endif
}
// The corruptions of the validator self-check hit L; check() compares both factors.
inline std::vector<double>& result(Data& d) { return d.L; }
// The check reads both factors: a judged run copies both out of the sample's process (drivers/judge.hpp).
inline auto outputs(Data& d) { return std::tie(d.L, d.U); }
inline bool same_factor(const char* name, const std::vector<double>& want, const std::vector<double>& got,
                        std::size_t n, std::string& why) {
  if (got.size() != n * n) {
    why = std::string(name) + ": expected " + std::to_string(n * n) + " elements (N x N), got " +
          std::to_string(got.size());
    return false;
  }
  if (all_same_fast(want, got, kTol)) return true;
  for (std::size_t k = 0; k < n * n; ++k)
    if (!close_value(want[k], got[k], kTol)) {
      why = std::string(name) + "(" + std::to_string(k / n) + ", " + std::to_string(k % n) + "): expected " +
            show(want[k]) + ", got " + show(got[k]);
      return false;
    }
  return true;
}
template <>
struct CheckReadsInput<Data> : std::true_type {};  // its check reads the input (common.hpp)
inline bool check(const Data& input, const Data& want, const Data& got, std::string& why) {
  return same_factor("L", want.L, got.L, input.n, why) && same_factor("U", want.U, got.U, input.n, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
