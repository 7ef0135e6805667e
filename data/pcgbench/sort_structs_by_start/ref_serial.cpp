  std::sort(results.begin(), results.end(), [](const Result& a, const Result& b) { return a.startTime < b.startTime; });
}
