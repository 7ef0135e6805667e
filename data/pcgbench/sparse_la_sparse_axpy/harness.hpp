// sparse_la_sparse_axpy: y has n entries; x about n/4 nonzeros at random increasing positions.
namespace pcg {
struct Data {
  double alpha = 0;
  std::vector<size_t> idx;
  std::vector<double> vals, y;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.alpha = rng.uniform(-2.0, 2.0);
  for (std::size_t i = 0; i < n; ++i)
    if (rng.integer(0, 3) == 0) {
      d.idx.push_back(i);
      d.vals.push_back(rng.uniform(-1.0, 1.0));
    }
  d.y = uniform_vector(rng, n, -1.0, 1.0);
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::sparse_axpy(d.alpha, d.idx, d.vals, d.y); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::sparse_axpy(d.alpha, d.idx, d.vals, d.y);
#elif defined(PCG_MODEL_KOKKOS)
  ::sparse_axpy(d.alpha, kview(d.idx), kview(d.vals), kview(d.y));
#elif defined(PCG_GPU)
  DeviceArray<size_t> idx(d.idx);
  DeviceArray<double> vals(d.vals), y(d.y);
  ::sparse_axpy<<<blocks_for(d.idx.size()), kBlock>>>(d.alpha, idx.ptr, vals.ptr, d.idx.size(), y.ptr);
  PCG_GPU_SYNC();
  y.to_host(d.y);
#endif
}
inline std::vector<double>& result(Data& d) { return d.y; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.y, got.y, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
