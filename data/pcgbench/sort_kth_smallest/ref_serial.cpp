  std::vector<int> copy(x);
  std::nth_element(copy.begin(), copy.begin() + (k - 1), copy.end());
  return copy[k - 1];
}
