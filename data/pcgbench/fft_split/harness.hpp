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
  pcg_baseline::fft_split(d.x, d.re, d.im);
  pack(d);
}
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::fft_split(d.x, d.re, d.im);
  pack(d);
#elif defined(PCG_MODEL_KOKKOS)
  ::fft_split(kc(d.x), kview(d.re), kview(d.im));
  pack(d);
#elif defined(PCG_GPU)
  DeviceArray<double> x(flat(d.x)), re(d.re), im(d.im);
  ::fft_split<<<blocks_for(d.x.size()), kBlock>>>(reinterpret_cast<const PCG_COMPLEX*>(x.ptr), re.ptr, im.ptr, d.x.size());
  PCG_GPU_SYNC();
  re.to_host(d.re);
  im.to_host(d.im);
  pack(d);
#endif
}
inline std::vector<double>& result(Data& d) { return d.both; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.both, got.both, why, 1e-7);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
