// OCI runtime selection on a real engine: a job configured for a runtime runs
// under that runtime or not at all. Docker (config/engines/daemon.json)
// has runsc registered; Podman 4.3 ignores the runtime a container asks for
// and runs every container under its service's default runtime (runc here),
// so there a runsc job must be refused, never run under runc.
#include <sys/utsname.h>

#include <chrono>
#include <string>

#include "coderunner/engine/curl_transport.h"
#include "coderunner/engine/system.h"
#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

// The job prints the kernel release it sees: gVisor's sentry reports its
// own (fixed) version, never the host kernel's.
constexpr const char* kReleaseProbe = "import os; print(os.uname().release)";

std::string HostRelease() {
  struct utsname u;
  return uname(&u) == 0 ? std::string(u.release) + "\n" : "";
}

bool EngineIsPodman() {
  engine::CurlTransport transport(EngineSocketUnderTest());
  engine::SystemClient system(transport, std::chrono::seconds(10));
  auto v = system.Version();
  return v.ok() && v->kind == engine::EngineKind::kPodman;
}

// auth none puts every request on tier enterprise.
class RunscTierTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override { return "tiers: {enterprise: {runtime: runsc}}\n"; }
};

class RuncTierTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "sandbox: {runtime: runsc}\ntiers: {enterprise: {runtime: runc}}\n";
  }
};

TEST_F(RunscTierTest, ATierRunscJobRunsUnderGvisorOrNotAtAll) {
  HttpAnswer a = server_->Execute("python", kReleaseProbe);
  ASSERT_EQ(a.status, 200) << a.body;
  if (a.json["status"] == "succeeded") {
    EXPECT_NE(a.json["stdout"], HostRelease()) << "ran on the host kernel: " << a.body;
  } else {
    // Only an engine that cannot select a runtime per container may refuse,
    // and it must say why; the job never started.
    EXPECT_TRUE(EngineIsPodman()) << a.body;
    EXPECT_EQ(a.json["status"], "error") << a.body;
    EXPECT_EQ(a.json["error"]["code"], "runtime_not_applied") << a.body;
    EXPECT_EQ(a.json["stdout"], "") << a.body;
  }
  if (!EngineIsPodman()) {
    EXPECT_EQ(a.json["status"], "succeeded") << a.body;
  }
}

TEST_F(RuncTierTest, ATierRuncJobOverridesARunscServiceDefault) {
  HttpAnswer a = server_->Execute("python", kReleaseProbe);
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["status"], "succeeded") << a.body;
  EXPECT_EQ(a.json["stdout"], HostRelease()) << a.body;
}

}  // namespace
}  // namespace coderunner::testing
