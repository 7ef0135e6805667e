  size_t best = 0;
  double best_dist = std::fabs(x[0] - M_PI);
  for (size_t i = 1; i < x.size(); ++i) {
    const double dist = std::fabs(x[i] - M_PI);
    if (dist < best_dist) {
      best_dist = dist;
      best = i;
    }
  }
  return best;
}
