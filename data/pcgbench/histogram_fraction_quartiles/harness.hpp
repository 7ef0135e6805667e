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
inline void call_baseline(Data& d) { pcg_baseline::fraction_quartiles(d.x, d.bins); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::fraction_quartiles(d.x, d.bins);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<size_t[4], Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> bins(d.bins.data());
  ::fraction_quartiles(kview(d.x), bins);
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x);
  DeviceArray<unsigned long long> bins(4, 0ULL);
  ::fraction_quartiles<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), bins.ptr);
  PCG_GPU_SYNC();
  std::vector<unsigned long long> host;
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
