// sparse_la_sparse_axpy: indices 0..n-1; each index is in x with probability 1/4 and in y with probability 1/4.
inline bool operator==(const Element& a, const Element& b) { return a.index == b.index && a.value == b.value; }
inline bool operator!=(const Element& a, const Element& b) { return !(a == b); }
inline std::ostream& operator<<(std::ostream& o, const Element& e) { return o << "{" << e.index << "," << e.value << "}"; }
inline void bump(Element& e) { e.value += 1.0; }
namespace pcg {
struct Data {
  double alpha = 0;
  std::vector<Element> x, y, z;
  std::size_t nz = 0;  // distinct indices of x and y together
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.alpha = rng.uniform(-2.0, 2.0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t r = rng.next();
    if ((r & 3) == 0) d.x.push_back(Element{i, rng.uniform(-1.0, 1.0)});
    if (((r >> 2) & 3) == 0) d.y.push_back(Element{i, rng.uniform(-1.0, 1.0)});
    if ((r & 3) == 0 || ((r >> 2) & 3) == 0) ++d.nz;
  }
#if !defined(PCG_VECTOR_API)
  d.z.assign(d.nz, Element{0, 0.0});
#endif
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::sparseAxpy(d.alpha, d.x, d.y, d.z); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::sparseAxpy(d.alpha, d.x, d.y, d.z);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const Element*> x = kview(d.x);
  Kokkos::View<const Element*> y = kview(d.y);
  Kokkos::View<Element*> z = kview(d.z);
  ::sparseAxpy(d.alpha, x, y, z);
#elif defined(PCG_GPU)
  DeviceArray<Element> x(d.x), y(d.y), z(d.z);
  ::sparseAxpy<<<blocks_for(std::max<std::size_t>(d.x.size() + d.y.size(), 1)), kBlock>>>(
      d.alpha, x.ptr, y.ptr, z.ptr, d.x.size(), d.y.size(), d.z.size());
  PCG_GPU_SYNC();
  z.to_host(d.z);
#endif
}
inline std::vector<Element>& result(Data& d) { return d.z; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  if (want.z.size() != got.z.size()) {
    why = "expected " + std::to_string(want.z.size()) + " elements in z, got " + std::to_string(got.z.size());
    return false;
  }
  for (std::size_t k = 0; k < want.z.size(); ++k)
    if (want.z[k].index != got.z[k].index || !close_value(want.z[k].value, got.z[k].value, kTol)) {
      why = "element " + std::to_string(k) + ": expected " + show(want.z[k]) + ", got " + show(got.z[k]);
      return false;
    }
  return true;
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
