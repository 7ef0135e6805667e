// histogram_bins_by_10: x (n doubles in [0, 100), skewed towards small values so bins differ) -> 10 counts.
namespace pcg {
struct Data {
  std::vector<double> x;
  std::array<size_t, 10> bins{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x.resize(n);
  for (auto& v : d.x) {
    const double u = rng.uniform(0.0, 1.0);
    v = std::min(99.999, 100.0 * u * u);
  }
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::binsBy10Count(d.x, d.bins); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::binsBy10Count(d.x, d.bins);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes the bins by non-const reference: pass named views.
  Kokkos::View<const double*> x = kview(d.x);
  Kokkos::View<size_t[10]> bins = Kokkos::View<size_t[10], Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(d.bins.data());
  ::binsBy10Count(x, bins);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x);
  DeviceArray<size_t> bins(10, 0);
  ::binsBy10Count<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), bins.ptr);
  PCG_GPU_SYNC();
  std::vector<size_t> host;
  bins.to_host(host);
  for (int k = 0; k < 10; ++k) d.bins[k] = host[k];
#endif
}
inline std::array<size_t, 10>& result(Data& d) { return d.bins; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_array(want.bins, got.bins, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
