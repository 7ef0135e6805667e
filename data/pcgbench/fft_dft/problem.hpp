// fft_dft: n reals in [-1, 1] -> their DFT (O(n^2); n is not a power of two at the timed size).
#include "drivers/fft.hpp"
namespace pcg {
struct Data {
  std::vector<double> x;
  std::vector<std::complex<double>> out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  return Data{uniform_vector(rng, n, -1.0, 1.0), std::vector<std::complex<double>>(n)};
}
inline void call_baseline(Data& d) { pcg_baseline::dft(d.x, d.out); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::dft(d.x, d.out);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes non-const lvalue references: pass named views.
  Kokkos::View<const double*> x = kview(d.x);
  Kokkos::View<Kokkos::complex<double>*> output = kc(d.out);
  ::dft(x, output);
#elif defined(PCG_GPU)
  const std::size_t n = d.x.size();
  DeviceArray<double> x(d.x), out(2 * n, 0.0);
  ::dft<<<blocks_for(n), kBlock>>>(x.ptr, reinterpret_cast<PCG_COMPLEX*>(out.ptr), n);
  PCG_GPU_SYNC();
  complex_to_host(out, d.out);
#endif
}
inline std::vector<std::complex<double>>& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.out, got.out, why, 1e-7);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
