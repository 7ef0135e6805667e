// graph_largest_component: an undirected random graph whose vertices split into many small components and one large one
// (edges only inside random groups; groups of very different sizes) -> largestComponent.
#include "drivers/graph.hpp"
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
  d.A = grouped_graph(rng, n);
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::largestComponent(d.A, d.n); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::largestComponent(d.A, d.n);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const int**> A = kview2(d.A, d.n, d.n);
  d.out = ::largestComponent(A, d.n);
#elif defined(PCG_GPU)
  DeviceArray<int> A(d.A), largestComponentSize(1, 0);
  ::largestComponent<<<nxn_grid(d.n), nxn_block()>>>(A.ptr, d.n, largestComponentSize.ptr);
  PCG_GPU_SYNC();
  d.out = largestComponentSize.first();
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
