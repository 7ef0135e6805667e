// Helpers shared by the sparse_la headers whose types declare `struct COOElement { size_t row, column; double
// value; }` (ParEval's COO element): comparison, printing and corruption of elements, random COO matrices.
#pragma once

inline bool operator==(const COOElement& a, const COOElement& b) {
  return a.row == b.row && a.column == b.column && a.value == b.value;
}
inline bool operator!=(const COOElement& a, const COOElement& b) { return !(a == b); }
inline std::ostream& operator<<(std::ostream& o, const COOElement& e) {
  return o << "{" << e.row << "," << e.column << "," << e.value << "}";
}
inline void bump(COOElement& e) { e.value += 1.0; }

namespace pcg {

// A random rows x cols matrix in COO form, sorted by (row, column), every position at most once. Each row gets
// 0..max_per_row entries at distinct random columns (values in [lo, hi], never 0); with `diagonal` every row
// i < cols also gets a diagonal entry, set so that the row is strictly diagonally dominant (|a_ii| exceeds
// the sum of the other |a_ij| by at least 1; LU and Gaussian elimination need no pivoting).
inline std::vector<COOElement> random_coo(Rng& rng, std::size_t rows, std::size_t cols, std::size_t max_per_row,
                                          double lo, double hi, bool diagonal = false) {
  std::vector<COOElement> a;
  std::vector<std::size_t> picked;
  for (std::size_t i = 0; i < rows; ++i) {
    picked.clear();
    const std::size_t len = cols == 0 ? 0 : (std::size_t)rng.integer(0, (long long)std::min(max_per_row, cols));
    for (std::size_t k = 0; k < len; ++k) picked.push_back((std::size_t)rng.integer(0, (long long)cols - 1));
    if (diagonal && i < cols) picked.push_back(i);
    std::sort(picked.begin(), picked.end());
    picked.erase(std::unique(picked.begin(), picked.end()), picked.end());
    const std::size_t first = a.size();
    double off = 0.0;
    for (std::size_t j : picked) {
      double v = rng.uniform(lo, hi);
      if (v == 0.0) v = hi;
      a.push_back(COOElement{i, j, v});
      if (!(diagonal && j == i)) off += std::fabs(v);
    }
    if (diagonal && i < cols)
      for (std::size_t k = first; k < a.size(); ++k)
        if (a[k].column == i) a[k].value = (rng.uniform(0.0, 1.0) < 0.5 ? -1.0 : 1.0) * (off + rng.uniform(1.0, 2.0));
  }
  return a;
}

// The dense row-major rows x cols matrix of COO elements (duplicates summed); false if an element lies outside.
inline bool coo_to_dense(const std::vector<COOElement>& a, std::size_t rows, std::size_t cols,
                         std::vector<double>& dense, std::string& why) {
  dense.assign(rows * cols, 0.0);
  for (std::size_t k = 0; k < a.size(); ++k) {
    if (a[k].row >= rows || a[k].column >= cols) {
      if (a[k].value == 0.0) continue;
      why = "element " + std::to_string(k) + " " + show(a[k]) + " lies outside the " + std::to_string(rows) + " x " +
            std::to_string(cols) + " matrix";
      return false;
    }
    dense[a[k].row * cols + a[k].column] += a[k].value;
  }
  return true;
}

}  // namespace pcg
