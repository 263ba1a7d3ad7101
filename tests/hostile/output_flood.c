// Attack: write 100 MiB to stdout from C, to swamp the service's memory or
// the answer.
// Contained by limits.output_bytes: the answer holds at most the cap, with
// stdout_truncated set; the service's memory does not follow the flood.
#include <stdio.h>
#include <string.h>

int main(void) {
  static char line[1 << 16];
  memset(line, 'y', sizeof line - 1);
  line[sizeof line - 1] = '\n';
  for (int i = 0; i < 1600; ++i) fwrite(line, 1, sizeof line, stdout);
  return 0;
}
