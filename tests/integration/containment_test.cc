// Containment, asserted errno by errno: what a job gets when it goes for
// PID 1 (coderunner-init), forges init's report, or calls the kernel
// interfaces escapes are built from. Every server here runs with the result
// cache off and every answer must say `cached: false`: a cached answer would
// prove nothing about the container that did not run.
#include <map>
#include <string>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using Expected = std::map<std::string, std::string>;

bool UnderGvisor() { return RuntimeUnderTest() == "runsc"; }

void ExpectExactly(const nlohmann::json& answer, const Expected& want) {
  auto got = StdoutFields(answer);
  for (const auto& [name, value] : want) {
    EXPECT_EQ(got[name], value) << name << "\n" << answer.value("stdout", "").substr(0, 3000);
  }
}

class ContainmentTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override { return "jobs: {cache_ttl_s: 0}\n"; }
};

// The same attacks on the cold path (no warm pool): init gets its nonce
// from the container's environment instead of the pool's "go" message.
class ContainmentColdTest : public ContainmentTest {
 protected:
  std::string ExtraConfig() const override {
    return "jobs: {cache_ttl_s: 0}\npool: {enabled: false}\n";
  }
};

TEST_F(ContainmentTest, Pid1CannotBeReadWrittenOrSignalled) {
  nlohmann::json r = RunHostile("python", "pid1_takeover.py");
  EXPECT_EQ(r["status"], "succeeded") << r.dump().substr(0, 2000);
  Expected want = {
      {"mem_rw", "EACCES"},
      {"mem_ro", "EACCES"},
      // gVisor shows a non-dumpable process's environment to its own uid;
      // init wipes its environment block before the job starts (below).
      {"environ", UnderGvisor() ? "ok" : "EACCES"},
      {"process_vm_readv", "EPERM"},
      {"process_vm_writev", "EPERM"},
      {"pidfd_open", "EPERM"},
      {"pidfd_getfd", "EPERM"},
      {"pidfd_send_signal", "EPERM"},
      {"pidfd_send_signal_procfd", "EPERM"},
      {"kcmp", "EPERM"},
      {"ptrace_attach", "EPERM"},
      {"kill_SIGUSR1", "EPERM"},
      {"kill_SIGTERM", "EPERM"},
      {"kill_SIGKILL", "EPERM"},
      {"kill_SIGSTOP", "EPERM"},
      {"tkill", "EPERM"},
      {"tgkill", "EPERM"},
      {"rt_sigqueueinfo", "EPERM"},
      {"rt_tgsigqueueinfo", "EPERM"},
      // The job's own group does not hold PID 1: signalling it is harmless.
      {"kill_group", "ok"},
      {"pgid_is_init", "False"},
      {"still", "running"},
  };
  ExpectExactly(r, want);
  EXPECT_EQ(r.value("stdout", "").find("READ init memory"), std::string::npos);
  ExpectNormalJobStillWorks();
}

TEST_F(ContainmentTest, InitsEnvironmentHoldsNothingForTheJob) {
  // Where /proc/1/environ is readable at all (gVisor), it is blank.
  nlohmann::json r = RunUncached("python",
                                 "import os\ntry:\n  d = open('/proc/1/environ','rb').read()\n  "
                                 "print('bytes', len(d), 'visible', len(d.replace(b'\\0', b'')))\n"
                                 "except OSError as e:\n  print('denied', e.errno)\n");
  std::string out = r.value("stdout", "");
  EXPECT_TRUE(out.rfind("denied 13", 0) == 0 || out.find("visible 0") != std::string::npos) << out;
}

void ExpectForgeryChangesNothing(const nlohmann::json& r) {
  EXPECT_EQ(r["status"], "failed") << r.dump().substr(0, 2000);
  EXPECT_EQ(r["exit_code"], 3);
  EXPECT_NE(r["metrics"]["memory_peak_bytes"], 7);
  EXPECT_NE(r.value("stdout", "").find("denied /proc/1/mem"), std::string::npos) << r.dump();
}

TEST_F(ContainmentTest, AForgedTrailerDoesNotChangeAPooledResult) {
  ExpectForgeryChangesNothing(RunHostile("python", "forge_trailer.py"));
  ExpectForgeryChangesNothing(RunHostile("python", "forge_trailer.py", {{"stdin", "x"}}));
}

TEST_F(ContainmentColdTest, AForgedTrailerDoesNotChangeAColdResult) {
  ExpectForgeryChangesNothing(RunHostile("python", "forge_trailer.py"));
}

TEST_F(ContainmentTest, EscapeSyscallsFailWithExactlyTheFiltersErrno) {
  nlohmann::json r = RunHostile("python", "syscall_matrix.py");
  EXPECT_EQ(r["status"], "succeeded") << r.dump().substr(0, 2000);
  Expected want;
  for (const char* name : {"keyctl",
                           "add_key",
                           "request_key",
                           "bpf",
                           "perf_event_open",
                           "userfaultfd",
                           "io_uring_setup",
                           "clone_newuser",
                           "clone_newns",
                           "clone_newpid",
                           "clone_newnet",
                           "unshare_user",
                           "unshare_mnt",
                           "setns",
                           "mount",
                           "umount2",
                           "pivot_root",
                           "fsopen",
                           "fsconfig",
                           "fsmount",
                           "move_mount",
                           "fspick",
                           "open_tree",
                           "mount_setattr",
                           "name_to_handle_at",
                           "open_by_handle_at",
                           "init_module",
                           "finit_module",
                           "delete_module",
                           "kexec_load",
                           "kexec_file_load",
                           "syslog",
                           "swapon",
                           "swapoff",
                           "quotactl",
                           "acct",
                           "reboot",
                           "fanotify_init",
                           "ptrace_traceme",
                           "socket_vsock",
                           "socketpair_vsock"}) {
    want[name] = "EPERM";
  }
  want["clone3"] = "ENOSYS";
  want["x32_getpid"] = "ENOSYS";
  want["fallocate"] = "ENOTSUP";
  want["fallocate_keep_size"] = "ENOTSUP";
  // gVisor runs no i386 code at all; int 0x80 never reaches a syscall
  // table there and comes back as -EBADF.
  want["int80_getpid"] = UnderGvisor() ? "EBADF" : "ENOSYS";
  want["done"] = "";
  auto got = StdoutFields(r);
  for (const auto& [name, value] : want) {
    if (name == "done") continue;
    EXPECT_EQ(got[name], value) << name << "\n" << r.value("stdout", "").substr(0, 3000);
  }
  EXPECT_NE(r.value("stdout", "").find("\ndone\n"), std::string::npos) << r.dump();
  ExpectNormalJobStillWorks();
}

}  // namespace
}  // namespace coderunner::testing
