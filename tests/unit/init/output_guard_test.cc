// coderunner-init's /output policing (src/init/output_guard.c), exercised
// by running the real static binary on a scratch directory. Outside a PID
// namespace of its own it kills only the job's main process, so these runs
// are safe on the host. The job runs under init's seccomp filter (no
// fallocate), so preallocated and sparse files are made by the test itself.
#include <grp.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "coderunner/isolation/init_trailer.h"
#include "unit/isolation/disk_files.h"

extern char** environ;

namespace coderunner::isolation {
namespace {

namespace fs = std::filesystem;

struct InitRun {
  int status = -1;
  std::string stderr_text;
  std::optional<InitTrailer> trailer;
};

// Starts argv[0] with stderr on `err_fd`, as `uid` (and the gid of the
// same number) when it is not -1. Returns its pid.
pid_t Spawn(std::vector<char*>& argv, int err_fd, int close_fd, int64_t uid) {
  if (uid < 0) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
    posix_spawn_file_actions_addclose(&actions, close_fd);
    pid_t pid = -1;
    EXPECT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
  }
  pid_t pid = fork();
  if (pid == 0) {
    const auto id = static_cast<uid_t>(uid);
    if (dup2(err_fd, 2) < 0 || setgroups(0, nullptr) != 0 || setgid(id) != 0 || setuid(id) != 0) {
      _exit(120);
    }
    close(close_fd);
    execve(argv[0], argv.data(), environ);
    _exit(121);
  }
  return pid;
}

// Runs coderunner-init with `args` (as `uid` unless it is -1), calling
// `while_running` with its pid once it has started, and collects its
// stderr and exit status.
InitRun RunInit(const std::vector<std::string>& args,
                const std::function<void(pid_t)>& while_running = nullptr, int64_t uid = -1) {
  std::vector<std::string> all = {CODERUNNER_INIT_BINARY};
  all.insert(all.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  int pipefd[2];
  EXPECT_EQ(pipe(pipefd), 0);
  pid_t pid = Spawn(argv, pipefd[1], pipefd[0], uid);
  EXPECT_GT(pid, 0);
  close(pipefd[1]);
  if (while_running) while_running(pid);
  InitRun run;
  char buf[4096];
  ssize_t n;
  while ((n = read(pipefd[0], buf, sizeof(buf))) > 0) run.stderr_text.append(buf, n);
  close(pipefd[0]);
  waitpid(pid, &run.status, 0);
  run.trailer = ParseInitTrailer(run.stderr_text);
  return run;
}

// A scratch directory that, as /output must be, lies on a nosuid,nodev
// mount: a bind of itself (the test runs as root). Without root, runs pass
// -m (do not check the mount) instead.
class OutputGuardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-guard-XXXXXX";
    dir_ = mkdtemp(tmpl);
    mounted_ = mount(dir_.c_str(), dir_.c_str(), nullptr, MS_BIND, nullptr) == 0;
    if (mounted_) {
      EXPECT_EQ(mount(nullptr, dir_.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV,
                      nullptr),
                0);
    }
  }
  void TearDown() override {
    if (mounted_) umount2(dir_.c_str(), MNT_DETACH);
    fs::remove_all(dir_);
  }

  // init's arguments: the environment, -o dir_ (and -m without the mount),
  // then `rest` (bounds, "--", the command).
  std::vector<std::string> Args(const std::vector<std::string>& rest) const {
    std::vector<std::string> args = {"-e", "D=" + dir_, "-e", "PATH=/usr/bin:/bin", "-o", dir_};
    if (!mounted_) args.push_back("-m");
    args.insert(args.end(), rest.begin(), rest.end());
    return args;
  }
  // Clears the directory's contents (not the mount).
  void Empty() const {
    for (const auto& e : fs::directory_iterator(dir_)) fs::remove_all(e.path());
  }
  // What the entries below the directory hold on disk, as du counts it.
  int64_t DiskBytes() const {
    int64_t total = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      struct stat st;
      if (lstat(e.path().c_str(), &st) == 0) total += static_cast<int64_t>(st.st_blocks) * 512;
    }
    return total;
  }

  std::string dir_;
  bool mounted_ = false;
};

using coderunner::testing::MakeFile;

const std::string kSleep = "; exec sleep 30";

TEST_F(OutputGuardTest, BoundsCountAllocatedBlocksAndStopTheJobWithTheBoundItBroke) {
  struct Case {
    const char* what;
    std::vector<std::string> bounds;
    std::function<void(const std::string&)> before;  // Made by the test, unfiltered.
    std::string script;  // $D is the directory. Ends in a long sleep unless stopped.
    std::string violation;
  };
  const Case cases[] = {
      {"within bounds", {"-q", "100000", "-f", "10000", "-n", "10"}, nullptr, "echo hi > $D/a", ""},
      {"one file too large",
       {"-f", "100000"},
       nullptr,
       "head -c 200000 /dev/zero > $D/a" + kSleep,
       "file_too_large"},
      {"all files too large",
       {"-q", "100000"},
       nullptr,
       "for i in 1 2 3; do head -c 50000 /dev/zero > $D/f$i; done" + kSleep,
       "too_large"},
      {"too many entries",
       {"-n", "5"},
       nullptr,
       "for i in 1 2 3 4 5 6 7 8 9 10; do touch $D/f$i; done" + kSleep,
       "too_many_files"},
      // Size 0, 1 MiB preallocated past the end (fallocate -n): the attack.
      {"preallocated file over the file cap",
       {"-f", "65536"},
       [](const std::string& d) { MakeFile(d + "/x", 0, 1 << 20); },
       "exec sleep 30",
       "file_too_large"},
      {"preallocated file over the total cap",
       {"-q", "65536"},
       [](const std::string& d) { MakeFile(d + "/x", 0, 1 << 20); },
       "exec sleep 30",
       "too_large"},
      // 1 MiB by size, nothing allocated (truncate -s, or seek and write).
      {"sparse file over the file cap",
       {"-f", "65536"},
       [](const std::string& d) { MakeFile(d + "/s", 1 << 20, 0); },
       "exec sleep 30",
       "file_too_large"},
      {"sparse file over the total cap",
       {"-q", "65536"},
       [](const std::string& d) { MakeFile(d + "/s", 1 << 20, 0); },
       "exec sleep 30",
       "too_large"},
      // 40 bytes by size, a block each on disk.
      {"one-byte files",
       {"-q", "65536"},
       nullptr,
       "for i in $(seq 40); do printf 1 > $D/f$i; done" + kSleep,
       "too_large"},
      {"empty directories",
       {"-q", "65536"},
       nullptr,
       "for i in $(seq 40); do mkdir $D/d$i; done" + kSleep,
       "too_large"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    Empty();
    if (c.before) c.before(dir_);
    std::vector<std::string> rest = c.bounds;
    for (const char* a : {"--", "sh", "-c"}) rest.push_back(a);
    rest.push_back(c.script);
    InitRun run = RunInit(Args(rest));
    ASSERT_TRUE(run.trailer) << run.stderr_text;
    EXPECT_EQ(run.trailer->output_violation, c.violation);
    if (c.violation.empty()) {
      EXPECT_EQ(run.trailer->exit_code, 0);
      EXPECT_EQ(run.trailer->output_bytes, 3);
      // What counts against -q is what the disk holds: a block for 3 bytes.
      EXPECT_EQ(run.trailer->output_used_bytes, DiskBytes());
      EXPECT_GT(run.trailer->output_used_bytes, 3);
      EXPECT_EQ(run.trailer->output_entries, 1);
    } else {
      EXPECT_EQ(run.trailer->signal, SIGKILL) << "the job must be stopped, not left to finish";
    }
  }
}

// The attack of issue 28: the job makes a directory, opens a file in it,
// takes some of the directory's permissions away (chmod 0400 left it
// readable but not searchable, so every fstatat below it failed with
// EACCES and the walk took that for "raced away"), and writes through the
// descriptor it holds. init runs as the job's uid, so it gives the
// directory u+rwx back and counts what is below, whatever the mode; as
// root nothing would be hidden, so these runs are as a uid of their own.
TEST_F(OutputGuardTest, ADirectoryMadeUnsearchableIsStillCounted) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to run init as another uid";
  constexpr int64_t kUid = 2100065530;
  ASSERT_EQ(chown(dir_.c_str(), kUid, kUid), 0);
  for (const char* mode : {"0400", "0600", "0000", "0100", "0200", "0300"}) {
    SCOPED_TRACE(mode);
    Empty();
    const std::string script = std::string("mkdir $D/h; exec 3>$D/h/a; chmod ") + mode +
                               " $D/h; head -c 300000 /dev/zero >&3; exec sleep 30";
    InitRun run = RunInit(Args({"-q", "200000", "--", "sh", "-c", script}), nullptr, kUid);
    ASSERT_TRUE(run.trailer) << run.stderr_text;
    EXPECT_EQ(run.trailer->output_violation, "too_large") << run.stderr_text;
    EXPECT_EQ(run.trailer->signal, SIGKILL) << "the job must be stopped, not left to finish";
    chmod((dir_ + "/h").c_str(), 0700);
  }
}

TEST_F(OutputGuardTest, VolumeModeRollsBackTheGrowthOfARunOverQuota) {
  std::ofstream(dir_ + "/old") << std::string(100, 'o');
  std::ofstream(dir_ + "/grow") << std::string(10, 'g');
  InitRun run = RunInit(Args({"-q", "65536", "-r", "--", "sh", "-c",
                              "head -c 50 /dev/zero >> $D/grow; mkdir -p $D/new/deeper; "
                              "ln -s /etc/passwd $D/new/link; head -c 200000 /dev/zero > "
                              "$D/new/big; exec sleep 30"}));
  ASSERT_TRUE(run.trailer) << run.stderr_text;
  EXPECT_EQ(run.trailer->output_violation, "too_large");
  EXPECT_TRUE(run.trailer->output_rolled_back);
  EXPECT_EQ(run.trailer->output_bytes, 110);
  EXPECT_EQ(fs::file_size(dir_ + "/old"), 100u);
  EXPECT_EQ(fs::file_size(dir_ + "/grow"), 10u);
  EXPECT_FALSE(fs::exists(dir_ + "/new"));
  EXPECT_TRUE(fs::exists("/etc/passwd"));
  EXPECT_EQ(run.trailer->output_used_bytes, DiskBytes());
}

TEST_F(OutputGuardTest, VolumeModeRollbackFreesBlocksPreallocatedIntoAnEarlierFile) {
  std::ofstream(dir_ + "/old") << std::string(100, 'o');
  const int64_t before = DiskBytes();
  InitRun run = RunInit(
      Args({"-q", "65536", "-r", "--", "sh", "-c", "echo > $D/ready; exec sleep 30"}), [&](pid_t) {
        for (int i = 0; i < 500 && !fs::exists(dir_ + "/ready"); ++i) {
          usleep(10000);
        }
        // After init's snapshot: the size stays 100.
        MakeFile(dir_ + "/old", 0, 1 << 20);
      });
  ASSERT_TRUE(run.trailer) << run.stderr_text;
  EXPECT_EQ(run.trailer->output_violation, "too_large");
  EXPECT_EQ(run.trailer->signal, SIGKILL);
  EXPECT_TRUE(run.trailer->output_rolled_back);
  EXPECT_EQ(fs::file_size(dir_ + "/old"), 100u);
  EXPECT_FALSE(fs::exists(dir_ + "/ready"));
  EXPECT_EQ(DiskBytes(), before) << "the preallocated blocks must be freed";
  EXPECT_EQ(run.trailer->output_used_bytes, before);
}

TEST_F(OutputGuardTest, VolumeModeKeepsARunWithinQuota) {
  InitRun run = RunInit(Args({"-q", "65536", "-r", "--", "sh", "-c", "echo kept > $D/k"}));
  ASSERT_TRUE(run.trailer) << run.stderr_text;
  EXPECT_EQ(run.trailer->output_violation, "");
  EXPECT_FALSE(run.trailer->output_rolled_back);
  EXPECT_TRUE(fs::exists(dir_ + "/k"));
}

TEST_F(OutputGuardTest, Sigusr1StopsTheJobAndStillChecksTheOutput) {
  InitRun run =
      RunInit(Args({"-q", "65536", "-r", "--", "sh", "-c", "echo started > $D/s; exec sleep 30"}),
              [&](pid_t pid) {
                // The service only signals a job that has started.
                for (int i = 0; i < 500 && !fs::exists(dir_ + "/s"); ++i) usleep(10000);
                kill(pid, SIGUSR1);
              });
  ASSERT_TRUE(run.trailer) << "init must report even when stopped: " << run.stderr_text;
  EXPECT_EQ(run.trailer->signal, SIGKILL);
  EXPECT_EQ(run.trailer->output_violation, "");
  EXPECT_EQ(run.trailer->output_entries, 1);
  EXPECT_TRUE(fs::exists(dir_ + "/s"));
}

TEST_F(OutputGuardTest, AnOutputDirectoryWithoutNosuidNodevIsRefusedUnlessMIsGiven) {
  char tmpl[] = "/tmp/coderunner-guard-plain-XXXXXX";
  std::string plain = mkdtemp(tmpl);
  struct statvfs vfs;
  ASSERT_EQ(statvfs(plain.c_str(), &vfs), 0);
  if ((vfs.f_flag & (ST_NOSUID | ST_NODEV)) == (ST_NOSUID | ST_NODEV)) {
    fs::remove_all(plain);
    GTEST_SKIP() << "/tmp is nosuid,nodev here: no plain mount to refuse";
  }
  struct Case {
    bool m;
    int exit_code;
    std::string start_error;
    bool ran;
  };
  for (const Case& c : {Case{false, 126, "policy", false}, Case{true, 0, "", true}}) {
    SCOPED_TRACE(c.m ? "-m" : "no -m");
    fs::remove(plain + "/ran");
    std::vector<std::string> args = {"-e", "D=" + plain, "-e", "PATH=/usr/bin:/bin", "-o", plain};
    if (c.m) args.push_back("-m");
    for (const char* a : {"--", "sh", "-c", "touch $D/ran"}) args.push_back(a);
    InitRun run = RunInit(args);
    ASSERT_TRUE(WIFEXITED(run.status));
    EXPECT_EQ(WEXITSTATUS(run.status), c.exit_code) << run.stderr_text;
    ASSERT_TRUE(run.trailer) << run.stderr_text;
    EXPECT_EQ(run.trailer->start_error, c.start_error);
    EXPECT_EQ(fs::exists(plain + "/ran"), c.ran) << "the job must not run on a refused mount";
    if (!c.m) {
      EXPECT_NE(run.stderr_text.find("nosuid,nodev"), std::string::npos);
    }
  }
  fs::remove_all(plain);
}

TEST_F(OutputGuardTest, BadBoundArgumentsAreAUsageError) {
  for (const char* bad : {"-1", "x", "12abc"}) {
    SCOPED_TRACE(bad);
    InitRun run = RunInit({"-o", dir_, "-q", bad, "--", "true"});
    ASSERT_TRUE(WIFEXITED(run.status));
    EXPECT_EQ(WEXITSTATUS(run.status), 126);
  }
}

}  // namespace
}  // namespace coderunner::isolation
