  std::sort(x.begin(), x.end(), [](const int& a, const int& b) { return (a % 10 < b % 10 || (a % 10 == b % 10 && a < b)); });
}
