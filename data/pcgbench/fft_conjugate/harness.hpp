// fft_conjugate: n (a power of two) complex values with parts in [-1, 1] -> radix-2 transform.
namespace pcg {
struct Data {
  std::vector<std::complex<double>> x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x.resize(n);
  for (auto& v : d.x) v = {rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0)};
  return d;
}
#if defined(PCG_MODEL_KOKKOS)
// std::complex<double> and Kokkos::complex<double> have the same layout: view the vector in place.
inline Kokkos::View<Kokkos::complex<double>*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> kc(
    std::vector<std::complex<double>>& v) {
  using V = Kokkos::View<Kokkos::complex<double>*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  return V(reinterpret_cast<Kokkos::complex<double>*>(v.data()), v.size());
}
#endif
#if defined(PCG_GPU)
#if defined(PCG_MODEL_CUDA)
#define PCG_COMPLEX cuDoubleComplex
#else
#define PCG_COMPLEX hipDoubleComplex
#endif
inline std::vector<double> flat(const std::vector<std::complex<double>>& v) {
  std::vector<double> f(2 * v.size());
  for (std::size_t k = 0; k < v.size(); ++k) {
    f[2 * k] = v[k].real();
    f[2 * k + 1] = v[k].imag();
  }
  return f;
}
#endif
inline void call_baseline(Data& d) {
  pcg_baseline::fft_conjugate(d.x);
}
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::fft_conjugate(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  ::fft_conjugate(kc(d.x));
#elif defined(PCG_GPU)
  DeviceArray<double> x(flat(d.x)), out(2 * d.x.size(), 0.0);
  ::fft_conjugate<<<blocks_for(d.x.size()), kBlock>>>(reinterpret_cast<const PCG_COMPLEX*>(x.ptr), reinterpret_cast<PCG_COMPLEX*>(out.ptr), d.x.size());
  PCG_GPU_SYNC();
  std::vector<double> host;
  out.to_host(host);
  for (std::size_t k = 0; k < d.x.size(); ++k) d.x[k] = {host[2 * k], host[2 * k + 1]};
#endif
}
inline std::vector<std::complex<double>>& result(Data& d) { return d.x; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.x, got.x, why, 1e-7);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
