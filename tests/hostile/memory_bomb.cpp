// Attack: allocate and touch memory in C++ without end (1 MiB blocks, each
// written so the kernel must back it).
// Contained by limits.memory_bytes: the kernel's OOM killer ends the job
// (status oom) and the container's memory peak never passes the limit.
#include <cstdio>
#include <cstring>
#include <vector>

int main() {
  std::vector<char*> blocks;
  for (;;) {
    char* b = new char[1 << 20];
    std::memset(b, 'x', 1 << 20);
    blocks.push_back(b);
    if (blocks.size() % 64 == 0) std::printf("held %zu MiB\n", blocks.size());
  }
}
