// fft_forward: n (a power of two) complex values with parts in [-1, 1] -> radix-2 transform.
#include "drivers/fft.hpp"
namespace pcg {
struct Data {
  std::vector<std::complex<double>> x, out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = random_complex(rng, n);
  d.out.assign(n, std::complex<double>());
  return d;
}
inline void call_baseline(Data& d) {
  pcg_baseline::fft(d.x, d.out);
}
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::fft(d.x, d.out);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes non-const lvalue references: pass named views.
  Kokkos::View<const Kokkos::complex<double>*> x = kc(d.x);
  Kokkos::View<Kokkos::complex<double>*> output = kc(d.out);
  ::fft(x, output);
#elif defined(PCG_GPU)
  DeviceArray<double> x(flat(d.x)), out(2 * d.x.size(), 0.0);
  ::fft<<<blocks_for(d.x.size()), kBlock>>>(reinterpret_cast<const PCG_COMPLEX*>(x.ptr), reinterpret_cast<PCG_COMPLEX*>(out.ptr), d.x.size());
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
