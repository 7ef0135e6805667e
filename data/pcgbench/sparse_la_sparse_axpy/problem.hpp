// sparse_la_sparse_axpy: indices 0..n-1; each index is in x with probability 1/4 and in y with probability 1/4;
// z is the dense result, n doubles (ParEval's interface), all 0 on entry.
namespace pcg {
struct Data {
  double alpha = 0;
  std::vector<Element> x, y;
  std::vector<double> z;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.alpha = rng.uniform(-2.0, 2.0);
  d.x.reserve(n / 4 + n / 64 + 16);
  d.y.reserve(n / 4 + n / 64 + 16);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = rng.next();
    if ((r & 3) == 0) d.x.push_back(Element{i, rng.uniform(-1.0, 1.0)});
    if (((r >> 2) & 3) == 0) d.y.push_back(Element{i, rng.uniform(-1.0, 1.0)});
  }
  d.z.assign(n, 0.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::sparseAxpy(d.alpha, d.x, d.y, d.z); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::sparseAxpy(d.alpha, d.x, d.y, d.z);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const Element*> x = kview(d.x);
  Kokkos::View<const Element*> y = kview(d.y);
  Kokkos::View<double*> z = kview(d.z);
  ::sparseAxpy(d.alpha, x, y, z);
#elif defined(PCG_GPU)
  DeviceArray<Element> x(d.x), y(d.y);
  DeviceArray<double> z(d.z);
  ::sparseAxpy<<<blocks_for(std::max<std::size_t>(d.x.size() + d.y.size(), 1)), kBlock>>>(
      d.alpha, x.ptr, y.ptr, z.ptr, d.x.size(), d.y.size(), d.z.size());
  PCG_GPU_SYNC();
  z.to_host(d.z);
#endif
}
inline std::vector<double>& result(Data& d) { return d.z; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.z, got.z, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
