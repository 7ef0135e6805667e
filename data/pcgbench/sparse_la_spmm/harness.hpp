// sparse_la_spmm: A has M = n rows and K = n columns, 1-8 nonzeros per row (every 97th row up to 300);
// B is K x 8.
namespace pcg {
struct Data {
  std::size_t m = 0, k = 0, n = 8;
  std::vector<size_t> row_ptr, col;
  std::vector<double> val, B, C;
};
inline Data generate(std::size_t rows, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.m = d.k = rows;
  d.row_ptr.push_back(0);
  for (std::size_t i = 0; i < d.m; ++i) {
    const std::size_t len = (i % 97 == 0) ? (std::size_t)rng.integer(1, std::min<long long>(300, d.k)) : (std::size_t)rng.integer(1, 8);
    for (std::size_t e = 0; e < len; ++e) {
      d.col.push_back((std::size_t)rng.integer(0, (long long)d.k - 1));
      d.val.push_back(rng.uniform(-1.0, 1.0));
    }
    d.row_ptr.push_back(d.col.size());
  }
  d.B = uniform_vector(rng, d.k * d.n, -1.0, 1.0);
  d.C = uniform_vector(rng, d.m * d.n, -1.0, 1.0);  // garbage that must be overwritten
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::spmm(d.row_ptr, d.col, d.val, d.B, d.C, d.m, d.k, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::spmm(d.row_ptr, d.col, d.val, d.B, d.C, d.m, d.k, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  ::spmm(kview(d.row_ptr), kview(d.col), kview(d.val), kview2(d.B, d.k, d.n), kview2(d.C, d.m, d.n), d.m, d.k, d.n);
#elif defined(PCG_GPU)
  DeviceArray<size_t> row_ptr(d.row_ptr), col(d.col);
  DeviceArray<double> val(d.val), B(d.B), C(d.C);
  ::spmm<<<blocks_for(d.m * d.n), kBlock>>>(row_ptr.ptr, col.ptr, val.ptr, B.ptr, C.ptr, d.m, d.k, d.n);
  PCG_GPU_SYNC();
  C.to_host(d.C);
#endif
}
inline std::vector<double>& result(Data& d) { return d.C; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.C, got.C, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
