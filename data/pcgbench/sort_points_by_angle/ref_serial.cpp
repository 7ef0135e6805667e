  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return atan2(a.y, a.x) < atan2(b.y, b.x); });
}
