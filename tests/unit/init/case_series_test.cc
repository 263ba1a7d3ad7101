// coderunner-init running a series of cases (go modes "more" and "last",
// src/init/case_traces.h): the real static binary on the host, as an
// unprivileged uid, with a scratch directory and an output directory of
// its own. Each case is a fresh process; what it leaves in either
// directory (a directory it took its own rights from, a symlink out, a
// FIFO) is gone before the next case's go is taken, and nothing outside
// is touched; a case that leaves what init cannot clear ends the series.
// Outside a PID namespace of its own init kills only a case's main
// process, so these cases start nothing in the background (the
// integration tests do, in containers).
#include <fcntl.h>
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "coderunner/isolation/init_trailer.h"
#include "isolation/init_message.h"

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kCaseUid = 65534;

struct CaseEnd {
  std::string stdout_text;
  std::optional<InitTrailer> trailer;
};

class CaseSeriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-series-XXXXXX";
    root_ = mkdtemp(tmpl);
    ASSERT_EQ(chmod(root_.c_str(), 0755), 0);
    scratch_ = root_ + "/tmp";
    output_ = root_ + "/output";
    outside_ = root_ + "/outside.txt";
    // As in a container: /tmp root's and 1777, /output the job's.
    ASSERT_EQ(mkdir(scratch_.c_str(), 0755), 0);
    ASSERT_EQ(chmod(scratch_.c_str(), 01777), 0);
    ASSERT_EQ(mkdir(output_.c_str(), 0700), 0);
    ASSERT_EQ(chown(output_.c_str(), kCaseUid, kCaseUid), 0);
    std::ofstream(outside_) << "keep";
    fifo_ = root_ + "/go";
    ASSERT_EQ(mkfifo(fifo_.c_str(), 0644), 0);
    go_fd_ = open(fifo_.c_str(), O_RDWR | O_CLOEXEC);
    ASSERT_GE(go_fd_, 0);
  }

  void TearDown() override {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    for (int fd : {go_fd_, out_fd_, err_fd_}) {
      if (fd >= 0) close(fd);
    }
    fs::remove_all(root_);
  }

  // Starts init as kCaseUid: each case runs `sh -c SCRIPT`, with $T the
  // scratch directory and $O the output directory.
  void Start() {
    std::vector<std::string> args = {CODERUNNER_INIT_BINARY,
                                     "-W",
                                     fifo_,
                                     "-t",
                                     scratch_,
                                     "-o",
                                     output_,
                                     "-m",
                                     "-e",
                                     "PATH=/usr/bin:/bin",
                                     "-e",
                                     "T=" + scratch_,
                                     "-e",
                                     "O=" + output_,
                                     "-e",
                                     "X=" + outside_,
                                     "--",
                                     "/bin/sh",
                                     "-c"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2], err[2];
    ASSERT_EQ(pipe2(out, O_CLOEXEC), 0);
    ASSERT_EQ(pipe2(err, O_CLOEXEC), 0);
    pid_ = fork();
    if (pid_ == 0) {
      if (dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0 || setgroups(0, nullptr) != 0 ||
          setgid(kCaseUid) != 0 || setuid(kCaseUid) != 0) {
        _exit(120);
      }
      execv(argv[0], argv.data());
      _exit(121);
    }
    close(out[1]);
    close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
    ASSERT_EQ(fcntl(out_fd_, F_SETFL, O_NONBLOCK), 0);
  }

  // Sends the go of a case running `script`, and waits for its trailer.
  CaseEnd RunCase(const std::string& script, GoMode mode) {
    const std::string nonce = "ab" + std::to_string(++cases_);
    EXPECT_TRUE(WriteGoMessage(go_fd_, {false, nonce, {script}, mode}).ok());
    std::string err;
    CaseEnd end;
    char buf[4096];
    while (!end.trailer) {
      ssize_t n = read(err_fd_, buf, sizeof(buf));
      if (n <= 0) break;
      err.append(buf, static_cast<size_t>(n));
      end.trailer = ParseInitTrailer(err);
      if (end.trailer && end.trailer->eof != nonce) end.trailer.reset();
    }
    // init wrote stdout's end marker before the trailer.
    for (ssize_t n; (n = read(out_fd_, buf, sizeof(buf))) > 0;) {
      end.stdout_text.append(buf, static_cast<size_t>(n));
    }
    const std::string marker = StdoutEndMarker(nonce);
    EXPECT_TRUE(end.stdout_text.ends_with(marker)) << end.stdout_text;
    if (end.stdout_text.ends_with(marker))
      end.stdout_text.resize(end.stdout_text.size() - marker.size());
    return end;
  }

  // init's exit status once it ended; -1 if it still runs past a bound
  // that only keeps a broken init from hanging the test (not a timing
  // assertion).
  int Exited() {
    int status = -1;
    for (int i = 0; i < 3000 && waitpid(pid_, &status, WNOHANG) == 0; ++i) usleep(10000);
    if (status == -1) return -1;  // TearDown kills it.
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  std::string root_, scratch_, output_, outside_, fifo_;
  int go_fd_ = -1, out_fd_ = -1, err_fd_ = -1;
  pid_t pid_ = -1;
  int cases_ = 0;
};

TEST_F(CaseSeriesTest, EachCaseFindsNothingTheCaseBeforeItLeft) {
  Start();
  // Files in both directories, one in a directory the case took every
  // right from, a symlink to a file outside, a FIFO.
  CaseEnd first = RunCase(
      "mkdir -p $T/a/b $O/d && echo x > $T/a/b/f && echo y > $O/d/f && chmod 0 $T/a/b $T/a $O/d"
      " && ln -s $X $T/link && ln -s $X $O/link && mkfifo $T/fifo && echo left",
      GoMode::kMore);
  ASSERT_TRUE(first.trailer) << "no trailer";
  EXPECT_EQ(first.stdout_text, "left\n");
  EXPECT_EQ(first.trailer->exit_code, 0);
  EXPECT_TRUE(first.trailer->reusable);
  EXPECT_GT(first.trailer->memory_peak_bytes, 0);
  EXPECT_GE(first.trailer->cpu_us, 0);
  // What the first case left is gone before the second starts.
  EXPECT_TRUE(fs::is_empty(scratch_));
  EXPECT_TRUE(fs::is_empty(output_));
  CaseEnd second = RunCase("find $T $O -mindepth 1 | wc -l; cat $X", GoMode::kMore);
  ASSERT_TRUE(second.trailer);
  EXPECT_EQ(second.stdout_text, "0\nkeep");
  EXPECT_TRUE(second.trailer->reusable);
  CaseEnd last = RunCase("echo last; exit 3", GoMode::kLast);
  ASSERT_TRUE(last.trailer);
  EXPECT_EQ(last.stdout_text, "last\n");
  EXPECT_EQ(last.trailer->exit_code, 3);
  EXPECT_FALSE(last.trailer->reusable) << "nothing follows a series' last case";
  EXPECT_EQ(Exited(), 3);
  std::ifstream kept(outside_);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), "keep");
}

// Go mode "reuse" (a tenant's jobs in a row): /output stays for the
// service to collect after a job, and the next job finds it empty and with
// the bits it had before any job, though the job before (its owner) took
// its write bit away.
TEST_F(CaseSeriesTest, AReuseJobLeavesOutputToTheServiceAndTheNextFindsItEmptyAgain) {
  Start();
  CaseEnd first =
      RunCase("echo art > $O/a && echo t > $T/t && chmod 0500 $O && echo done", GoMode::kReuse);
  ASSERT_TRUE(first.trailer);
  EXPECT_EQ(first.stdout_text, "done\n");
  EXPECT_TRUE(first.trailer->reusable);
  EXPECT_EQ(first.trailer->output_entries, 1);
  EXPECT_TRUE(fs::is_empty(scratch_));
  EXPECT_TRUE(fs::exists(output_ + "/a")) << "left for the service";
  CaseEnd second = RunCase(
      "find $O $T -mindepth 1 | wc -l; touch $O/b && echo writable; stat -c %a $O", GoMode::kReuse);
  ASSERT_TRUE(second.trailer);
  EXPECT_EQ(second.stdout_text, "0\nwritable\n700\n");
  EXPECT_TRUE(second.trailer->reusable);
  CaseEnd last = RunCase("find $O -mindepth 1 | wc -l", GoMode::kLast);
  ASSERT_TRUE(last.trailer);
  EXPECT_EQ(last.stdout_text, "0\n");
  EXPECT_EQ(Exited(), 0);
}

TEST_F(CaseSeriesTest, ACaseThatLeavesWhatCannotBeClearedEndsTheSeries) {
  Start();
  // Deeper than init goes (kMaxClearDepth, 64).
  CaseEnd deep = RunCase("d=$T; for i in $(seq 70); do d=$d/x; mkdir $d || exit 1; done; echo deep",
                         GoMode::kMore);
  ASSERT_TRUE(deep.trailer);
  EXPECT_EQ(deep.stdout_text, "deep\n");
  EXPECT_EQ(deep.trailer->exit_code, 0);
  EXPECT_FALSE(deep.trailer->reusable);
  // init does not wait for another go: it ends with the case's status.
  EXPECT_EQ(Exited(), 0);
}

}  // namespace
}  // namespace coderunner::isolation
