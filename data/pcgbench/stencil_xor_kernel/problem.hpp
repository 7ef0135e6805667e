// stencil_xor_kernel: an N x N 0/1 grid (25% ones) -> 1 where exactly one of the 4 neighbours is 1.
namespace pcg {
struct Data {
  std::size_t n = 0;
  std::vector<int> in, out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.n = n;
  d.in = [&] { std::vector<int> v(n * n); for (auto& c : v) c = rng.uniform(0.0, 1.0) < 0.25 ? 1 : 0; return v; }();
  d.out.assign(n * n, int{});
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::cellsXOR(d.in, d.out, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::cellsXOR(d.in, d.out, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const int**> input = kview2(d.in, d.n, d.n);
  Kokkos::View<int**> output = kview2(d.out, d.n, d.n);
  ::cellsXOR(input, output, d.n);
#elif defined(PCG_GPU)
  DeviceArray<int> in(d.in), out(d.out);
  ::cellsXOR<<<blocks_for(d.n * d.n), kBlock>>>(in.ptr, out.ptr, d.n);
  PCG_GPU_SYNC();
  out.to_host(d.out);
#endif
}
inline std::vector<int>& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.out, got.out, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
