// sparse_la_sparse_lu_decomp: an N x N strictly diagonally dominant COO matrix (0..N/50+2 off-diagonal entries
// per row at random columns, plus the diagonal). L and U are compared as dense matrices (duplicates summed).
#include "drivers/sparse_la.hpp"
namespace pcg {
struct Data {
  std::size_t n = 0;
  std::vector<COOElement> A, L, U;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.n = n;
  d.A = random_coo(rng, n, n, n / 50 + 2, -1.0, 1.0, true);
#if !defined(PCG_VECTOR_API)
  d.L.assign(n * (n + 1) / 2, COOElement{0, 0, 0.0});
  d.U.assign(n * (n + 1) / 2, COOElement{0, 0, 0.0});
#endif
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::luFactorize(d.A, d.L, d.U, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::luFactorize(d.A, d.L, d.U, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const COOElement*> A = kview(d.A);
  Kokkos::View<COOElement*> L = kview(d.L);
  Kokkos::View<COOElement*> U = kview(d.U);
  ::luFactorize(A, L, U, d.n);
#elif defined(PCG_GPU)
  DeviceArray<COOElement> A(d.A), L(d.L), U(d.U);
  ::luFactorize<<<blocks_for(std::max<std::size_t>(d.A.size(), 1)), kBlock>>>(A.ptr, d.A.size(), L.ptr, d.L.size(),
                                                                               U.ptr, d.U.size(), d.n);
  PCG_GPU_SYNC();
  L.to_host(d.L);
  U.to_host(d.U);
#endif
}
// The corruptions of the validator self-check hit L; check() compares both factors.
inline std::vector<COOElement>& result(Data& d) { return d.L; }
inline bool same_factor(const char* name, const std::vector<COOElement>& want, const std::vector<COOElement>& got,
                        std::size_t n, bool lower, std::string& why) {
  std::vector<double> w, g;
  if (!coo_to_dense(want, n, n, w, why) || !coo_to_dense(got, n, n, g, why)) {
    why = std::string(name) + ": " + why;
    return false;
  }
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double gv = g[i * n + j];
      if ((lower ? j > i : j < i) && gv != 0.0) {
        why = std::string(name) + " has the entry " + show(gv) + " at (" + std::to_string(i) + ", " +
              std::to_string(j) + "), outside its triangle";
        return false;
      }
      if (!close_value(w[i * n + j], gv, kTol)) {
        why = std::string(name) + "(" + std::to_string(i) + ", " + std::to_string(j) + "): expected " +
              show(w[i * n + j]) + ", got " + show(gv);
        return false;
      }
    }
  return true;
}
template <>
struct CheckReadsInput<Data> : std::true_type {};  // its check reads the input (common.hpp)
inline bool check(const Data& input, const Data& want, const Data& got, std::string& why) {
  return same_factor("L", want.L, got.L, input.n, true, why) && same_factor("U", want.U, got.U, input.n, false, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
