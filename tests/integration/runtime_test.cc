// OCI runtime selection on a real engine: a job configured for a runtime runs
// under that runtime or not at all. Docker (config/engines/daemon.json)
// has runsc registered and honours the choice per container. Podman 4.3
// ignores it and runs every container under its service's default runtime,
// so there a job naming another runtime must be refused, never run (e.g. a
// runsc job on the runc service, a runc job on the runsc service).
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

// The job probing the kernel release either ran under the wanted runtime or,
// only on an engine that cannot pick a runtime per container (Podman), was
// refused unstarted, saying why. It never ran under another runtime.
void ExpectRanUnderOrRefused(const HttpAnswer& a, bool want_gvisor) {
  ASSERT_EQ(a.status, 200) << a.body;
  if (a.json["status"] == "succeeded") {
    if (want_gvisor) {
      EXPECT_NE(a.json["stdout"], HostRelease()) << "ran on the host kernel: " << a.body;
    } else {
      EXPECT_EQ(a.json["stdout"], HostRelease()) << "did not run under runc: " << a.body;
    }
    return;
  }
  EXPECT_TRUE(EngineIsPodman()) << "Docker must honour the runtime: " << a.body;
  EXPECT_EQ(a.json["status"], "error") << a.body;
  EXPECT_EQ(a.json["error"]["code"], "runtime_not_applied") << a.body;
  EXPECT_EQ(a.json["stdout"], "") << a.body;
}

TEST_F(RunscTierTest, ATierRunscJobRunsUnderGvisorOrNotAtAll) {
  ExpectRanUnderOrRefused(server_->Execute("python", kReleaseProbe), /*want_gvisor=*/true);
}

TEST_F(RuncTierTest, ATierRuncJobOverridesARunscServiceDefaultOrDoesNotRun) {
  ExpectRanUnderOrRefused(server_->Execute("python", kReleaseProbe), /*want_gvisor=*/false);
}

}  // namespace
}  // namespace coderunner::testing
