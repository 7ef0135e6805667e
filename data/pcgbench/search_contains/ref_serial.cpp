  for (int v : x)
    if (v == target) return true;
  return false;
}
