// fft_conjugate: n (a power of two) complex values with parts in [-1, 1] -> radix-2 transform.
#include "drivers/fft.hpp"
namespace pcg {
struct Data {
  std::vector<std::complex<double>> x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = random_complex(rng, n);
  return d;
}
inline void call_baseline(Data& d) {
  pcg_baseline::fftConjugate(d.x);
}
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::fftConjugate(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes a non-const lvalue reference: pass a named view.
  Kokkos::View<Kokkos::complex<double>*> x = kc(d.x);
  ::fftConjugate(x);
#elif defined(PCG_GPU)
  DeviceArray<double> x(flat(d.x));  // in place
  ::fftConjugate<<<blocks_for(d.x.size()), kBlock>>>(reinterpret_cast<PCG_COMPLEX*>(x.ptr), d.x.size());
  PCG_GPU_SYNC();
  complex_to_host(x, d.x);
#endif
}
inline std::vector<std::complex<double>>& result(Data& d) { return d.x; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.x, got.x, why, 1e-7);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
