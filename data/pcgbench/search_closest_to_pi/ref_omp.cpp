  double best_dist = INFINITY;
  size_t best = 0;
  #pragma omp parallel
  {
    double my_dist = INFINITY;
    size_t mine = 0;
    #pragma omp for nowait schedule(static)
    for (size_t i = 0; i < x.size(); ++i) {
      const double dist = std::fabs(x[i] - M_PI);
      if (dist < my_dist) {
        my_dist = dist;
        mine = i;
      }
    }
    #pragma omp critical
    if (my_dist < best_dist || (my_dist == best_dist && mine < best)) {
      best_dist = my_dist;
      best = mine;
    }
  }
  return best;
}
