// See hostile_attacks.h.
#include "hostile_attacks.h"

#include <gtest/gtest.h>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

// Fork and thread bombs: when the kernel refused one more task (EAGAIN),
// the program counted every task in the container, PID 1 included; never
// more than limits.pids.
void ExpectPidsHeld(const json& r) {
  EXPECT_EQ(StdoutFields(r)["errno"], "EAGAIN") << r.value("stdout", "");
  EXPECT_LE(ReportedInt(r, "peak_tasks"), r["limits"]["pids"].get<int64_t>()) << r.dump(1);
}

// fd_exhaust.py: the descriptor limit is sandbox.nofile, the open past it
// fails with EMFILE, and no more than that many are ever held.
void ExpectNofileHeld(const json& r) {
  auto fields = StdoutFields(r);
  const std::string n = std::to_string(kHostileNofile);
  EXPECT_EQ(fields["rlimit_nofile"], n + " " + n) << r.value("stdout", "");
  EXPECT_EQ(fields["errno"], "EMFILE") << r.value("stdout", "");
  EXPECT_LE(ReportedInt(r, "max_open"), kHostileNofile);
  EXPECT_LT(ReportedInt(r, "highest_fd"), kHostileNofile);
}

// kill_init.sh: exactly this, on every engine and runtime. Both kills are
// refused (EPERM from the seccomp filter for PID 1; ESRCH for -1, which
// spares PID 1 and finds no one else), init is still there, and the job
// ends on its own with 0. The line numbers are the script's own.
void ExpectKillInitRefused(const json& r) {
  EXPECT_EQ(r["stdout"],
            "/workspace/main.sh: line 8: kill: (1) - Operation not permitted\n"
            "kill -9 1: 1\n"
            "/workspace/main.sh: line 10: kill: (-1) - No such process\n"
            "kill -9 -1: 1\n"
            "init alive\n"
            "still alive\n");
  EXPECT_EQ(r["stderr"], "");
  EXPECT_EQ(r["exit_code"], 0);
}

}  // namespace

json BombLimits() { return {{"timeout_ms", 20000}, {"cpu_ms", 60000}}; }

std::vector<Attack> Attacks() {
  using J = json;
  return {
      {"thread_bomb.py", "python", BombLimits(), {"succeeded"}, {}, {}, ExpectPidsHeld},
      // At the memory limit the kernel may first reclaim the interpreter's
      // own (file-backed) pages over and over instead of killing it; on a
      // loaded machine that can last until the wall clock ends the job.
      // Either way memory never passes the limit (checked below).
      {"memory_bomb.js", "javascript", J::object(), {"oom", "failed", "timeout"}, {}, {}},
      // Under gVisor on a loaded host the 10 s wall limit can end it first;
      // either way the line reaches the answer capped.
      {"huge_line.py", "python", J::object(), {"succeeded", "timeout"}, {"zzzz"}, {}},
      {"binary_output.sh", "bash", J::object(), {"succeeded"}, {}, {}},
      {"sleep_past_timeout.sh", "bash", J{{"timeout_ms", 1000}}, {"timeout"}, {}, {}},
      {"sigterm_trap.sh", "bash", J{{"timeout_ms", 1000}}, {"timeout"}, {}, {}},
      {"mountinfo_probe.py",
       "python",
       J::object(),
       {"succeeded"},
       {"/proc/1/environ"},
       {kSecretCanary}},
      {"engine_socket.py", "python", J::object(), {"succeeded"}, {"blocked"}, {"REACHED"}},
      {"raw_socket.py", "python", J::object(), {"succeeded"}, {"denied raw-icmp"}, {"OPENED"}},
      {"write_workspace.js",
       "javascript",
       J::object(),
       {"succeeded"},
       {"denied /workspace/main.js"},
       {"WROTE"}},
      {"setuid_attempts.sh",
       "bash",
       J::object(),
       {"succeeded"},
       {"uid 21"},  // A job uid of its own (2100000000 and up).
       {"SETUID", "ROOT via su"}},
      {"ptrace_init.py",
       "python",
       J::object(),
       {"succeeded"},
       {"attach pid1: -1", "CapEff 0000000000000000"},
       {}},
      {"kill_init.sh", "bash", J::object(), {"succeeded"}, {}, {}, ExpectKillInitRefused},
      {"mount_unshare.py",
       "python",
       J::object(),
       {"succeeded"},
       {"denied unshare-user", "denied unshare-mnt", "denied mount-tmpfs", "denied chroot"},
       {"ALLOWED"}},
      {"fd_exhaust.py",
       "python",
       J::object(),
       {"succeeded"},
       {"raise denied"},
       {"RAISED"},
       ExpectNofileHeld},
      {"write_proc_sys.sh",
       "bash",
       J::object(),
       {"succeeded"},
       {"denied /proc/sysrq-trigger"},
       {"WROTE"}},
      {"fork_bomb.js", "javascript", BombLimits(), {"succeeded"}, {}, {}, ExpectPidsHeld},
  };
}

void ExpectAttackContained(const Attack& a, const json& r) {
  std::string status = r.value("status", "");
  EXPECT_TRUE(a.statuses.count(status)) << "status " << status << ": " << r.dump().substr(0, 2000);
  if (r.contains("metrics")) {
    EXPECT_LE(r["metrics"]["memory_peak_bytes"].get<int64_t>(),
              r["limits"]["memory_bytes"].get<int64_t>());
  }
  std::string out = r.value("stdout", "");
  for (const auto& s : a.must_have)
    EXPECT_NE(out.find(s), std::string::npos) << s << "\n" << out.substr(0, 2000);
  for (const auto& s : a.must_not)
    EXPECT_EQ(out.find(s), std::string::npos) << s << "\n" << out.substr(0, 2000);
  // The cap is on raw bytes (1 MiB); invalid bytes come back as 3-byte
  // U+FFFD, so only text output is bounded by the cap as a string.
  if (std::string(a.file) != "binary_output.sh") {
    EXPECT_LE(out.size(), 1u << 20);
  }
  if (a.check) a.check(r);
}

void ExpectExactly(const json& answer, const Expected& want) {
  auto got = StdoutFields(answer);
  for (const auto& [name, value] : want) {
    EXPECT_EQ(got[name], value) << name << "\n" << answer.value("stdout", "").substr(0, 3000);
  }
}

Expected SyscallFilterWant(bool under_gvisor) {
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
  want["int80_getpid"] = under_gvisor ? "EBADF" : "ENOSYS";
  return want;
}

Expected Pid1TakeoverWant(bool under_gvisor) {
  return {
      {"mem_rw", "EACCES"},
      {"mem_ro", "EACCES"},
      // gVisor shows a non-dumpable process's environment to its own uid;
      // init wipes its environment block before the job starts
      // (ContainmentTest.InitsEnvironmentHoldsNothingForTheJob).
      {"environ", under_gvisor ? "ok" : "EACCES"},
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
}

}  // namespace coderunner::testing
