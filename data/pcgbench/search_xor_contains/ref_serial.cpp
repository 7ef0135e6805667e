  bool in_x = false, in_y = false;
  for (int v : x)
    if (v == val) { in_x = true; break; }
  for (int v : y)
    if (v == val) { in_y = true; break; }
  return in_x != in_y;
}
