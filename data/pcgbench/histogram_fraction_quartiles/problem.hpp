// histogram_fraction_quartiles: n doubles in [0, 1000) -> counts by quarter of the fractional part.
namespace pcg {
struct Data {
  std::vector<double> x;
  std::array<size_t, 4> bins{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = uniform_vector(rng, n, 0.0, 1000.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::countQuartiles(d.x, d.bins); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::countQuartiles(d.x, d.bins);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes the bins by non-const reference: pass named views.
  Kokkos::View<const double*> x = kview(d.x);
  Kokkos::View<size_t[4]> bins = Kokkos::View<size_t[4], Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(d.bins.data());
  ::countQuartiles(x, bins);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x);
  DeviceArray<size_t> bins(4, 0);
  ::countQuartiles<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), bins.ptr);
  PCG_GPU_SYNC();
  std::vector<size_t> host;
  bins.to_host(host);
  for (int k = 0; k < 4; ++k) d.bins[k] = host[k];
#endif
}
inline std::array<size_t, 4>& result(Data& d) { return d.bins; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_array(want.bins, got.bins, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
