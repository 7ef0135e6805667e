// sort_ignore_zero: n ints in [-10^6, 10^6] (repeats likely at large n), about one in eight set to 0.
namespace pcg {
struct Data {
  std::vector<int> x;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x = int_vector(rng, n, -1000000, 1000000);
  for (auto& v : d.x)
    if (rng.integer(0, 7) == 0) v = 0;
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::sortIgnoreZero(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::sortIgnoreZero(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<int*> x = kview(d.x);
  ::sortIgnoreZero(x);
#elif defined(PCG_GPU)
  // A kernel that sorts in place in one launch may need scratch memory from the device heap: allow 1 GiB.
#if defined(PCG_MODEL_CUDA)
  static const bool heap = cudaDeviceSetLimit(cudaLimitMallocHeapSize, (size_t)1 << 30) == cudaSuccess;
#else
  static const bool heap = hipDeviceSetLimit(hipLimitMallocHeapSize, (size_t)1 << 30) == hipSuccess;
#endif
  (void)heap;
  DeviceArray<int> x(d.x);
  ::sortIgnoreZero<<<blocks_for(d.x.size()), kBlock>>>(x.ptr, d.x.size());
  PCG_GPU_SYNC();
  x.to_host(d.x);
#endif
}
inline std::vector<int>& result(Data& d) { return d.x; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.x, got.x, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
