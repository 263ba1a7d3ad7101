// Attack on the compile step: make the compiler read /dev/random as a
// header, which never ends (the preprocessor reads a file whole).
// Contained by the language's compile limits: the step ends at its time or
// memory (a compile_error), the program never runs, and the compiler's
// messages are cut at compile_output_bytes.
#include "/dev/random"
int main(void) { return 0; }
