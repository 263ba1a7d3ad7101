// Containment, asserted errno by errno: what a job gets when it goes for
// PID 1 (coderunner-init), forges init's report, or calls the kernel
// interfaces escapes are built from. Every server here runs with the result
// cache off and every answer must say `cached: false`: a cached answer would
// prove nothing about the container that did not run.
#include <map>
#include <string>

#include "engine_fixture.h"
#include "hostile_attacks.h"

namespace coderunner::testing {
namespace {

bool UnderGvisor() { return RuntimeUnderTest() == "runsc"; }

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
  ExpectExactly(r, Pid1TakeoverWant(UnderGvisor()));
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
  Expected want = SyscallFilterWant(UnderGvisor());
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
