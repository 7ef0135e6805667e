  // Sort a copy of the non-zero values, then write them back over the non-zero positions in order.
  std::vector<int> vals;
  vals.reserve(x.size());
  for (int v : x)
    if (v != 0) vals.push_back(v);
  std::sort(vals.begin(), vals.end());
  size_t k = 0;
  for (int& v : x)
    if (v != 0) v = vals[k++];
}
