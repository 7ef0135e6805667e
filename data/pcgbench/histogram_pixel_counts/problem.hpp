// histogram_pixel_counts: n intensities with a peaked distribution (mean of two uniforms) -> 256 counts.
namespace pcg {
struct Data {
  std::vector<int> image;
  std::array<size_t, 256> bins{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.image.resize(n);
  for (auto& v : d.image) v = (int)((rng.integer(0, 255) + rng.integer(0, 255)) / 2);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::pixelCounts(d.image, d.bins); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::pixelCounts(d.image, d.bins);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes the bins by non-const reference: pass named views.
  Kokkos::View<const int*> image = kview(d.image);
  Kokkos::View<size_t[256]> bins = Kokkos::View<size_t[256], Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(d.bins.data());
  ::pixelCounts(image, bins);
#elif defined(PCG_GPU)
  DeviceArray<int> image(d.image);
  DeviceArray<size_t> bins(256, 0);
  ::pixelCounts<<<blocks_for(d.image.size()), kBlock>>>(image.ptr, d.image.size(), bins.ptr);
  PCG_GPU_SYNC();
  std::vector<size_t> host;
  bins.to_host(host);
  for (int k = 0; k < 256; ++k) d.bins[k] = host[k];
#endif
}
inline std::array<size_t, 256>& result(Data& d) { return d.bins; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_array(want.bins, got.bins, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
