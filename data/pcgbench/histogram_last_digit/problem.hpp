// histogram_last_digit: n ints in [0, 10^6), a third of them multiples of 10 -> counts by last digit.
namespace pcg {
struct Data {
  std::vector<int> x;
  std::array<size_t, 10> bins{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = [&] { std::vector<int> v(n); for (auto& e : v) e = (int)rng.integer(0, 99999) * (rng.integer(0, 2) == 0 ? 10 : 1); return v; }();
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::last_digit_counts(d.x, d.bins); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::last_digit_counts(d.x, d.bins);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<size_t[10], Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> bins(d.bins.data());
  ::last_digit_counts(kview(d.x), bins);
#elif defined(PCG_GPU)
  DeviceArray<int> x(d.x);
  DeviceArray<unsigned long long> bins(10, 0ULL);
  ::last_digit_counts<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), bins.ptr);
  PCG_GPU_SYNC();
  std::vector<unsigned long long> host;
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
