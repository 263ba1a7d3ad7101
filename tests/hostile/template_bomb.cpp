// Attack on the compile step: a template bomb. Each instantiation of
// Bomb<N> needs two of Bomb<N-1> with distinct types, so the compiler's
// work and memory double per level; at 40 levels it never finishes.
// Contained by the language's compile limits: the step ends at its time or
// memory (a compile_error) and the program never runs.
template <int N, typename T>
struct Bomb {
  using A = typename Bomb<N - 1, Bomb<N, T>>::type;
  using B = typename Bomb<N - 1, Bomb<N, A>>::type;
  using type = Bomb<N, B>;
};
template <typename T>
struct Bomb<0, T> {
  using type = T;
};
int main() { return sizeof(Bomb<40, int>::type); }
