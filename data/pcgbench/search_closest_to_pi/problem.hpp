// search_closest_to_pi: n doubles in [-100, 100] -> index of the value closest to pi. Four values 1e-9 to 1e-7 from pi
// (distances and sides drawn) are planted: the closest, the answer, in the region of the vector (an end, the first or
// the second half) the seed names, the others anywhere (the natural closest is about 200 / n away). So no place in the
// vector holds the answer, and a search that stops at the first value near pi is mostly wrong.
namespace pcg {
struct Data {
  std::vector<double> x;
  std::size_t out = 0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d{uniform_vector(rng, n, -100.0, 100.0), 0};
  // The three farther ones first: the closest, placed last, is never overwritten.
  for (int k = 0; k < 4; ++k) {
    const double offset = k < 3 ? rng.uniform(3e-9, 1e-7) : rng.uniform(1e-9, 2e-9);
    const std::size_t i = planted_position(rng, n, k < 3 ? rng.next() : seed);
    d.x[i] = rng.integer(0, 1) == 0 ? M_PI + offset : M_PI - offset;
  }
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::findClosestToPi(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::findClosestToPi(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  d.out = ::findClosestToPi(kview(d.x));
#elif defined(PCG_GPU)
  DeviceArray<double> x(d.x);
  DeviceArray<size_t> closestToPiIndex(1, 0);
  ::findClosestToPi<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size(), closestToPiIndex.ptr);
  PCG_GPU_SYNC();
  d.out = closestToPiIndex.first();
#endif
}
inline std::size_t& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) { d.x.resize(keep); return true; }
}  // namespace pcg
