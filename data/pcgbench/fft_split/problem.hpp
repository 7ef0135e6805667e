// fft_split: n (a power of two) complex values with parts in [-1, 1] -> radix-2 transform.
#include "drivers/fft.hpp"
namespace pcg {
struct Data {
  std::vector<std::complex<double>> x;
  std::vector<double> re, im;
  std::vector<double> both;  // re then im, the result compared
};
inline void pack(Data& d) {
  d.both = d.re;
  d.both.insert(d.both.end(), d.im.begin(), d.im.end());
}
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = random_complex(rng, n);
  d.re.assign(n, 0.0);
  d.im.assign(n, 0.0);
  return d;
}
inline void call_baseline(Data& d) {
  pcg_baseline::fft(d.x, d.re, d.im);
  pack(d);
}
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::fft(d.x, d.re, d.im);
  pack(d);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes the outputs as non-const lvalue references: pass named views.
  Kokkos::View<Kokkos::complex<double>*> x = kc(d.x);
  Kokkos::View<double*> r = kview(d.re), i = kview(d.im);
  ::fft(x, r, i);
  pack(d);
#elif defined(PCG_GPU)
  const std::size_t n = d.x.size();
  DeviceArray<double> x(flat(d.x)), r(d.re), i(d.im);
  ::fft<<<blocks_for(n), kBlock>>>(reinterpret_cast<const PCG_COMPLEX*>(x.ptr), r.ptr, i.ptr, n);
  PCG_GPU_SYNC();
  r.to_host(d.re);
  i.to_host(d.im);
  pack(d);
#endif
}
inline std::vector<double>& result(Data& d) { return d.both; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.both, got.both, why, 1e-7);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
