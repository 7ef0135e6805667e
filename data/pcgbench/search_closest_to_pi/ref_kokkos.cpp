  using Reducer = Kokkos::MinLoc<double, size_t>;
  Reducer::value_type best;
  Kokkos::parallel_reduce("closest_to_pi", x.extent(0), KOKKOS_LAMBDA(const size_t i, Reducer::value_type& part) {
    const double dist = Kokkos::Experimental::fabs(x(i) - M_PI);
    if (dist < part.val || (dist == part.val && i < part.loc)) {
      part.val = dist;
      part.loc = i;
    }
  }, Reducer(best));
  return best.loc;
}
