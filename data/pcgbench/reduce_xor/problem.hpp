// reduce_xor: n random bools (each true with probability 1/2) -> their logical XOR (the parity of the count of
// true values). std::vector<bool> packs its values into bits and has no data(), so the Kokkos view and the
// device copy are made from `bytes`, the same values one byte (0 or 1) each. The GPU kernel's output is one bool,
// read back as a byte (any value but 0 counts as true).
namespace pcg {
struct Data {
  std::vector<bool> x;
  std::vector<unsigned char> bytes;
  bool out = false;
};
inline Data generate(std::size_t n, std::uint64_t seed) {
  Rng rng(seed);
  Data d;
  d.x.resize(n);
  d.bytes.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const bool v = (rng.next() >> 17) & 1;
    d.x[i] = v;
    d.bytes[i] = v ? 1 : 0;
  }
  return d;
}
inline void call_baseline(Data& d) { d.out = pcg_baseline::reduceLogicalXOR(d.x); }
inline void call_solution(Data& d) {
#if defined(PCG_VECTOR_API)
  d.out = ::reduceLogicalXOR(d.x);
#elif defined(PCG_MODEL_KOKKOS)
  Kokkos::View<const bool*> x = HostView<const bool>(reinterpret_cast<const bool*>(d.bytes.data()), d.bytes.size());
  d.out = ::reduceLogicalXOR(x);
#elif defined(PCG_GPU)
  DeviceArray<unsigned char> x(d.bytes);
  DeviceArray<unsigned char> output(1, 0);  // false
  ::reduceLogicalXOR<<<blocks_for(d.bytes.size()), kBlock>>>(reinterpret_cast<const bool*>(x.ptr), d.bytes.size(),
                                                             reinterpret_cast<bool*>(output.ptr));
  PCG_GPU_SYNC();
  d.out = output.first() != 0;
#endif
}
inline bool& result(Data& d) { return d.out; }
inline bool check(const Data&, const Data& want, const Data& got, std::string& why) {
  return same_exact(want.out, got.out, why);
}
inline bool truncate(Data& d, std::size_t keep) {
  d.x.resize(keep);
  d.bytes.resize(keep);
  return true;
}
}  // namespace pcg
