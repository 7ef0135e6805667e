// sort_complex_by_magnitude: n complex values at random angles, in random order, with distinct magnitudes that ascend
// from 0 by gaps of 2 / n to 6 / n drawn (about 4 in all): consecutive magnitudes differ by far more than rounding, so
// |z|, std::abs and sqrt(re^2 + im^2) order them alike and the sorted vector is unique, and a value's sorted place
// follows from the others, not from its magnitude alone (with equal gaps it was n |z| / 4 - 1).
#include "drivers/fft.hpp"
namespace pcg {
struct Data {
  std::vector<std::complex<double>> x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  std::vector<std::size_t> order(n);
  for (std::size_t i = 0; i < n; ++i) order[i] = i;
  for (std::size_t i = n; i-- > 1;) std::swap(order[i], order[(std::size_t)rng.integer(0, (long long)i)]);
  std::vector<double> magnitude(n);
  double r = 0.0;
  for (auto& m : magnitude) m = (r += rng.uniform(2.0, 6.0) / (double)n);
  d.x.resize(n);
  for (std::size_t i = 0; i < n; ++i) d.x[i] = std::polar(magnitude[order[i]], rng.uniform(-M_PI, M_PI));
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::sortComplexByMagnitude(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::sortComplexByMagnitude(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<Kokkos::complex<double>*> x = kc(d.x);
  ::sortComplexByMagnitude(x);
#elif defined(PCG_GPU)
  DeviceArray<double> x(flat(d.x));
  ::sortComplexByMagnitude<<<blocks_for(d.x.size()), kBlock>>>(reinterpret_cast<PCG_COMPLEX*>(x.ptr), d.x.size());
  PCG_GPU_SYNC();
  complex_to_host(x, d.x);
#endif
}
inline std::vector<std::complex<double>>& result(Data& d) { return d.x; }
// The values are only moved, so they must match exactly (up to the tolerance's rounding slack).
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.x, got.x, why, 1e-12);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
