  std::sort(x.begin(), x.end(), [](const int& a, const int& b) { return ((a < 0 ? -a : a) > (b < 0 ? -b : b) || ((a < 0 ? -a : a) == (b < 0 ? -b : b) && a < b)); });
}
