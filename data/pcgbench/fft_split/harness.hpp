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
  // r and i are complex arrays in ParEval's GPU signature; the real field of each element holds the value.
  const std::size_t n = d.x.size();
  DeviceArray<double> x(flat(d.x)), r(2 * n, 0.0), i(2 * n, 0.0);
  ::fft<<<blocks_for(n), kBlock>>>(reinterpret_cast<const PCG_COMPLEX*>(x.ptr), reinterpret_cast<PCG_COMPLEX*>(r.ptr), reinterpret_cast<PCG_COMPLEX*>(i.ptr), n);
  PCG_GPU_SYNC();
  std::vector<double> hr, hi;
  r.to_host(hr);
  i.to_host(hi);
  for (std::size_t k = 0; k < n; ++k) {
    d.re[k] = hr[2 * k];
    d.im[k] = hi[2 * k];
  }
  pack(d);
#endif
}
inline std::vector<double>& result(Data& d) { return d.both; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.both, got.both, why, 1e-7);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
