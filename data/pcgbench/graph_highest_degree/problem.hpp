// graph_highest_degree: a random undirected graph whose edge probability varies by vertex -> max degree.
namespace pcg {
struct Data {
  std::size_t n = 0;
  std::vector<int> A;
  int out = 0;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.n = n;
  d.A.assign(n * n, 0);
  std::vector<double> weight(n);
  for (auto& w : weight) w = rng.uniform(0.0, 1.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = i + 1; j < n; ++j)
      if (rng.uniform(0.0, 1.0) < 0.2 * weight[i] * weight[j]) d.A[i * n + j] = d.A[j * n + i] = 1;
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::maxDegree(d.A, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::maxDegree(d.A, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const int**> A = kview2(d.A, d.n, d.n);
  d.out = ::maxDegree(A, d.n);
#elif defined(PCG_GPU)
  DeviceArray<int> A(d.A), maxDegree(1, 0);
  ::maxDegree<<<blocks_for(d.n), kBlock>>>(A.ptr, d.n, maxDegree.ptr);
  PCG_GPU_SYNC();
  d.out = maxDegree.first();
#endif
}
inline int& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
// The subgraph on the first `keep` vertices.
inline bool truncate(Data& d, std::size_t keep) {
  std::vector<int> A(keep * keep);
  for (std::size_t i = 0; i < keep; ++i)
    for (std::size_t j = 0; j < keep; ++j) A[i * keep + j] = d.A[i * d.n + j];
  d.A.swap(A);
  d.n = keep;
  return true;
}
}  // namespace pcg
