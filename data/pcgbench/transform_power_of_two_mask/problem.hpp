// transform_power_of_two_mask: n ints, about one in three a power of two, the rest in [-100, 10^5] -> bool mask.
namespace pcg {
struct Data {
  std::vector<int> x;
  std::vector<bool> mask;
#if defined(PCG_MODEL_KOKKOS)
  // Kokkos::View<bool*> cannot view a std::vector<bool> (packed bits): the solution writes this bool view,
  // allocated with the input, outside the timed region; collect_output copies it into mask after the call.
  // Every copy of the input shares it (a View copy is a handle), which is harmless: the mask is output only.
  Kokkos::View<bool*> mask_view;
#endif
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, -100, 100000);
  for (std::size_t i = 0; i < n; ++i)
    if (rng.integer(0, 2) == 0) d.x[i] = 1 << rng.integer(0, 20);
  d.mask.assign(d.x.size(), false);
#if defined(PCG_MODEL_KOKKOS)
  d.mask_view = Kokkos::View<bool*>("mask", n);
#endif
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::mapPowersOfTwo(d.x, d.mask); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::mapPowersOfTwo(d.x, d.mask);
#elif defined(PCG_MODEL_KOKKOS)
  ::mapPowersOfTwo(kview(d.x), d.mask_view);
#elif defined(PCG_GPU)
  const std::size_t n = d.x.size();
  DeviceArray<int> x(d.x);
  bool* mask = nullptr;
  PCG_GPU_MALLOC((void**)&mask, std::max<std::size_t>(n, 1) * sizeof(bool));
  std::unique_ptr<bool[]> buf(new bool[std::max<std::size_t>(n, 1)]());
  PCG_GPU_MEMCPY(mask, buf.get(), n * sizeof(bool), PCG_GPU_H2D);
  ::mapPowersOfTwo<<<blocks_for(n), kBlock>>>(x.ptr, mask, n);
  PCG_GPU_SYNC();
  PCG_GPU_MEMCPY(buf.get(), mask, n * sizeof(bool), PCG_GPU_D2H);
  PCG_GPU_FREE(mask);
  for (std::size_t i = 0; i < n; ++i) d.mask[i] = buf[i];
#endif
}
#if defined(PCG_MODEL_KOKKOS)
inline void collect_output(Data& d) {
  d.mask.resize(d.mask_view.extent(0));
  for (std::size_t i = 0; i < d.mask.size(); ++i) d.mask[i] = d.mask_view(i);
}
// A judged run copies the View out of the sample's process and converts it there (drivers/judge.hpp).
inline auto outputs(Data& d) { return std::tie(d.mask_view); }
#endif
inline std::vector<bool>& result(Data& d) { return d.mask; }
// std::vector<bool>'s elements are proxies (bump(bool&) cannot bind them): the corruptions, written out.
inline bool corrupt_output(std::vector<bool>& v, Corruption c) {
  if (v.empty()) return false;
  switch (c) {
    case Corruption::OffByOne: v[v.size() / 2] = !v[v.size() / 2]; return true;
    case Corruption::MissingElement: v.pop_back(); return true;
    case Corruption::Race:
      for (std::size_t i = v.size() / 4; i < v.size() / 2 + 1 && i < v.size(); i += 3) v[i] = false;
      return true;
  }
  return false;
}
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  if (want.mask.size() != got.mask.size()) {
    why = "expected " + std::to_string(want.mask.size()) + " elements, got " + std::to_string(got.mask.size());
    return false;
  }
  for (std::size_t i = 0; i < want.mask.size(); ++i)
    if (want.mask[i] != got.mask[i]) {
      why = "element " + std::to_string(i) + ": expected " + (want.mask[i] ? "true" : "false") + ", got " +
            (got.mask[i] ? "true" : "false");
      return false;
    }
  return true;
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
