// stencil_edge_kernel: an N x N image of uniform intensities -> the clamped 3x3 edge filter.
namespace pcg {
struct Data {
  std::size_t n = 0;
  std::vector<int> in, out;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.n = n;
  d.in = int_vector(rng, n * n, 0, 255);
  d.out.assign(n * n, int{});
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::convolveKernel(d.in, d.out, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::convolveKernel(d.in, d.out, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const int**> imageIn = kview2(d.in, d.n, d.n);
  Kokkos::View<int**> imageOut = kview2(d.out, d.n, d.n);
  ::convolveKernel(imageIn, imageOut, d.n);
#elif defined(PCG_GPU)
  DeviceArray<int> in(d.in), out(d.out);
  ::convolveKernel<<<blocks_for(d.n * d.n), kBlock>>>(in.ptr, out.ptr, d.n);
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
