// Attack on the compile step: make the compiler print megabytes of error
// messages: ten thousand assignments to a literal, each an error of its
// own quoting the macros it came through.
// Contained by languages.<name>.compile_output_bytes: the result's
// compile.output holds at most the cap per stream, with output_truncated.
#define E1 1 = 1;
#define E2 E1 E1 E1 E1 E1 E1 E1 E1 E1 E1
#define E3 E2 E2 E2 E2 E2 E2 E2 E2 E2 E2
#define E4 E3 E3 E3 E3 E3 E3 E3 E3 E3 E3
int main() { E4 E4 E4 E4 E4 E4 E4 E4 E4 E4 }
