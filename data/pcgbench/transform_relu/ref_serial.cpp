  for (double& v : x) v = v < 0.0 ? 0.0 : v;
}
