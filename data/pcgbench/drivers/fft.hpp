// Helpers shared by the FFT problems' headers (data/pcgbench/fft_*/problem.hpp include this file):
// random complex inputs, Kokkos views of std::complex vectors, and the device-side complex type with the
// copies between the host's std::complex<double> and the device's interleaved (re, im) doubles.
#pragma once

namespace pcg {

// n complex values with real and imaginary parts uniform in [-1, 1].
inline std::vector<std::complex<double>> random_complex(Rng& rng, std::size_t n) {
  std::vector<std::complex<double>> v(n);
  for (auto& z : v) z = {rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)};
  return v;
}

#if defined(PCG_MODEL_KOKKOS)
// std::complex<double> and Kokkos::complex<double> have the same layout: view the vector in place.
using ComplexHostView =
    Kokkos::View<Kokkos::complex<double>*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
inline ComplexHostView kc(std::vector<std::complex<double>>& v) {
  return ComplexHostView(reinterpret_cast<Kokkos::complex<double>*>(v.data()), v.size());
}
#endif

#if defined(PCG_GPU)
#if defined(PCG_MODEL_CUDA)
#define PCG_COMPLEX cuDoubleComplex
#else
#define PCG_COMPLEX hipDoubleComplex
#endif
// Interleaved (re, im) doubles, the layout of cuDoubleComplex / hipDoubleComplex.
inline std::vector<double> flat(const std::vector<std::complex<double>>& v) {
  std::vector<double> f(2 * v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    f[2 * k] = v[k].real();
    f[2 * k + 1] = v[k].imag();
  }
  return f;
}
// Copy n device complex values back into `out`.
inline void complex_to_host(DeviceArray<double>& device, std::vector<std::complex<double>>& out) {
  std::vector<double> host;
  device.to_host(host);
  for (std::size_t k = 0; k < out.size(); ++k) out[k] = {host[2 * k], host[2 * k + 1]};
}
#endif

}  // namespace pcg
