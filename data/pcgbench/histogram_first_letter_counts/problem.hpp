// histogram_first_letter_counts: n lower-case words of 1 to 12 letters, first letters skewed towards the start
// of the alphabet (so the counts differ) -> 26 counts. Kokkos gets the words as a '\0'-padded character
// matrix, CUDA/HIP as device pointers into one buffer of '\0'-terminated words; both are built here, outside
// the timed region (the GPU copies to the device are inside it, as in every GPU problem).
namespace pcg {
struct Data {
  std::vector<std::string> s;
#if defined(PCG_MODEL_KOKKOS)
  std::vector<char> chars;  // s.size() rows of `width` characters
  std::size_t width = 1;
#elif defined(PCG_GPU)
  std::vector<char> flat;   // the words one after another, each followed by '\0'
  std::vector<std::size_t> offsets;
#endif
  std::array<size_t, 26> bins{};
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.s.resize(n);
  for (auto& w : d.s) {
    const std::size_t len = (std::size_t)rng.integer(1, 12);
    w.resize(len);
    w[0] = (char)('a' + rng.integer(0, 25) * rng.integer(0, 25) / 25);
    for (std::size_t j = 1; j < len; ++j) w[j] = (char)('a' + rng.integer(0, 25));
  }
#if defined(PCG_MODEL_KOKKOS)
  for (const auto& w : d.s) d.width = std::max(d.width, w.size() + 1);
  d.chars.assign(n * d.width, '\0');
  for (std::size_t i = 0; i < n; ++i) std::copy(d.s[i].begin(), d.s[i].end(), d.chars.begin() + i * d.width);
#elif defined(PCG_GPU)
  d.offsets.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    d.offsets[i] = d.flat.size();
    d.flat.insert(d.flat.end(), d.s[i].begin(), d.s[i].end());
    d.flat.push_back('\0');
  }
#endif
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::firstLetterCounts(d.s, d.bins); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::firstLetterCounts(d.s, d.bins);
#elif defined(PCG_MODEL_KOKKOS)
  // ParEval's Kokkos signature takes the bins by non-const reference: pass named views.
  Kokkos::View<const char**> s = kview2(d.chars, d.s.size(), d.width);
  Kokkos::View<size_t[26]> bins = Kokkos::View<size_t[26], Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(d.bins.data());
  ::firstLetterCounts(s, bins);
#elif defined(PCG_GPU)
  DeviceArray<char> chars(d.flat);
  std::vector<const char*> words(d.s.size());
  for (std::size_t i = 0; i < words.size(); ++i) words[i] = chars.ptr + d.offsets[i];
  DeviceArray<const char*> s(words);
  DeviceArray<size_t> bins(26, 0);
  ::firstLetterCounts<<<blocks_for(d.s.size()), kBlock>>>(s.ptr, d.s.size(), bins.ptr);
  PCG_GPU_SYNC();
  std::vector<size_t> host;
  bins.to_host(host);
  for (int k = 0; k < 26; ++k) d.bins[k] = host[k];
#endif
}
inline std::array<size_t, 26>& result(Data& d) { return d.bins; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_array(want.bins, got.bins, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
