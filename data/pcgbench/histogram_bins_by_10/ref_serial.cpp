  for (double v : x) ++bins[static_cast<size_t>(v / 10.0)];
}
