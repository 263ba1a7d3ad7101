// init's own lines (src/init/stream_write.h) are written whole even when
// the pipe cannot take them at once: a full pipe (EAGAIN here, as ENOMEM
// right after an OOM kill) is waited out, within a bound.
#include "init/stream_write.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>

namespace {

TEST(StreamWriteTest, ALineIsWrittenWholeOnceAFullPipeDrains) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ASSERT_EQ(fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
  // Fill the pipe: the next write fails with EAGAIN until someone reads.
  std::string filler(4096, 'f');
  size_t filled = 0;
  for (ssize_t w; (w = write(fds[1], filler.data(), filler.size())) > 0;) filled += w;
  ASSERT_GT(filled, 0u);
  const std::string trailer =
      "\x1e"
      "coderunner-init {\"exit_code\":137}\n";
  std::string read_back;
  std::thread reader([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    char buf[65536];
    size_t want = filled + trailer.size();
    while (read_back.size() < want) {
      ssize_t n = read(fds[0], buf, sizeof(buf));
      if (n <= 0) break;
      read_back.append(buf, static_cast<size_t>(n));
    }
  });
  EXPECT_EQ(WriteLine(fds[1], kStreamLineBytes,
                      "\x1e"
                      "coderunner-init {\"exit_code\":%d}\n",
                      137),
            0);
  close(fds[1]);
  reader.join();
  close(fds[0]);
  ASSERT_EQ(read_back.size(), filled + trailer.size());
  EXPECT_EQ(read_back.substr(filled), trailer);
}

TEST(StreamWriteTest, APipeNobodyReadsGivesUpWithinTheBound) {
  int fds[2];
  ASSERT_EQ(pipe2(fds, O_CLOEXEC), 0);
  ASSERT_EQ(fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
  std::string filler(4096, 'f');
  while (write(fds[1], filler.data(), filler.size()) > 0) {
  }
  EXPECT_EQ(WriteWhole(fds[1], "x\n", 2), -1);
  EXPECT_EQ(WriteLine(fds[1], 8, "%s", "longer than eight\n"), -1);
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
