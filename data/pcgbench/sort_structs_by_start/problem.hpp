// sort_structs_by_start: n results with distinct start times in random order, ascending from 1 by gaps of 1 to 5 drawn,
// so that a result's sorted place follows from the others and not from its start time alone (with equal gaps it was
// (startTime - 1) / 3).
inline bool operator==(const Result& a, const Result& b) { return a.startTime == b.startTime && a.duration == b.duration && a.value == b.value; }
inline bool operator!=(const Result& a, const Result& b) { return !(a == b); }
inline std::ostream& operator<<(std::ostream& o, const Result& r) { return o << "{" << r.startTime << "," << r.duration << "," << r.value << "}"; }
inline void bump(Result& r) { r.startTime += 1; }
namespace pcg {
struct Data {
  std::vector<Result> results;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.results = [&] { std::vector<Result> v(n); int start = 1; for (std::size_t i = 0; i < n; ++i, start += (int)rng.integer(1, 5)) v[i] = Result{start, (int)rng.integer(1, 100), (float)rng.uniform(-1.0, 1.0)}; for (std::size_t i = n; i-- > 1;) std::swap(v[i], v[(std::size_t)rng.integer(0, (long long)i)]); return v; }();
  return d;
}
inline void call_baseline(Data& d) { pcg_baseline::sortByStartTime(d.results); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  ::sortByStartTime(d.results);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<Result*> results = kview(d.results);
  ::sortByStartTime(results);
#elif defined(PCG_GPU)
  DeviceArray<Result> results(d.results);
  ::sortByStartTime<<<blocks_for(d.results.size()), kBlock>>>(results.ptr, d.results.size());
  PCG_GPU_SYNC();
  results.to_host(d.results);
#endif
}
inline std::vector<Result>& result(Data& d) { return d.results; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_vector(want.results, got.results, why);
}
inline bool truncate(Data&, std::size_t) { return false; }
}  // namespace pcg
