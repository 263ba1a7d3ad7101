// Sandboxes launched ahead (sandbox.ready_sandboxes, docs/sandboxes.md):
// a create of a shape asked for before takes a ready sandbox; it is the
// creating tenant's alone, with a uid of its own; another shape is
// launched for itself; the service removes what is still ready when it
// stops.
#include <filesystem>
#include <sstream>
#include <string>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr const char* kAcme = "acme-key-pool-0123456789";
constexpr const char* kGlobex = "globex-key-pool-0123456789";

class SandboxPoolTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml({{"acme", "pro", kAcme}, {"globex", "pro", kGlobex}}) +
           "sandbox: {ready_sandboxes: 1}\n";
  }

  // The value of the /metrics sample that starts with `sample` (a family
  // and its labels as the service writes them); 0 if there is none.
  double Sample(const std::string& sample) {
    std::istringstream in(server_->Get("/metrics").body);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind(sample + " ", 0) == 0) return std::stod(line.substr(sample.size() + 1));
    }
    return 0;
  }

  // The service removes the sandboxes still ready as it stops: no container
  // of it is left, and their directories are gone (the sandboxes'
  // directory is empty). The rest is EngineTest's.
  void TearDown() override {
    if (!server_ || !server_->started()) return;
    EXPECT_TRUE(server_->Stop()) << server_->log();
    EXPECT_EQ(CountContainers(server_->socket(), server_->instance()), 0);
    std::error_code ec;
    EXPECT_TRUE(std::filesystem::remove(server_->workspace_dir() + "/sandboxes", ec))
        << ec.message();
    EXPECT_TRUE(std::filesystem::is_empty(server_->workspace_dir(), ec));
    server_.reset();
  }

  std::string Create(const std::string& key, const std::string& language) {
    HttpAnswer a = server_->Call("POST", "/v1/sandboxes", key,
                                 json{{"language", language}, {"ttl_s", 600}}.dump());
    EXPECT_EQ(a.status, 201) << a.body;
    return a.json.is_object() ? a.json.value("id", "") : "";
  }

  std::string Run(const std::string& key, const std::string& id, const std::string& code) {
    HttpAnswer a =
        server_->Call("POST", "/v1/sandboxes/" + id + "/execute", key, json{{"code", code}}.dump());
    EXPECT_EQ(a.status, 200) << a.body;
    return a.json.is_object() ? a.json.value("stdout", "") : "";
  }
};

TEST_F(SandboxPoolTest, ACreateOfAShapeAskedForBeforeTakesASandboxLaunchedAhead) {
  const std::string launched = "coderunner_sandboxes_created_total{from=\"launched\"}";
  const std::string ahead = "coderunner_sandboxes_created_total{from=\"launched_ahead\"}";
  // Nothing is launched ahead before a shape is asked for.
  EXPECT_EQ(Sample("coderunner_sandboxes_ready"), 0);
  const std::string first = Create(kAcme, "python");
  EXPECT_EQ(Sample(launched), 1);
  ASSERT_TRUE(Eventually([&] { return Sample("coderunner_sandboxes_ready") == 1; }));

  // Another tenant, same shape: the ready one, its own.
  const std::string second = Create(kGlobex, "python");
  EXPECT_EQ(Sample(ahead), 1);
  EXPECT_EQ(Sample(launched), 1);
  EXPECT_NE(second, first);
  EXPECT_EQ(Run(kGlobex, second, "x = 41\nprint(x + 1)"), "42\n");
  EXPECT_EQ(server_->Call("GET", "/v1/sandboxes/" + second, kAcme).status, 404);
  const std::string uid_code = "import os\nprint(os.getuid())";
  const std::string first_uid = Run(kAcme, first, uid_code);
  const std::string second_uid = Run(kGlobex, second, uid_code);
  EXPECT_NE(first_uid, second_uid);
  EXPECT_TRUE(server_->IsJobUid(std::stoll(second_uid))) << second_uid;

  // A shape not asked for before is launched for itself, then kept ready
  // too; the taken one's shape is filled again.
  const std::string third = Create(kGlobex, "javascript");
  EXPECT_EQ(Sample(launched), 2);
  EXPECT_EQ(Sample(ahead), 1);
  EXPECT_TRUE(Eventually([&] { return Sample("coderunner_sandboxes_ready") == 2; }));

  for (const auto& [key, id] : {std::pair{kAcme, first}, {kGlobex, second}, {kGlobex, third}}) {
    EXPECT_EQ(server_->Call("DELETE", "/v1/sandboxes/" + id, key).status, 200);
  }
  EXPECT_EQ(Sample("coderunner_sandboxes_ready"), 2);  // What TearDown sees removed.
}

}  // namespace
}  // namespace coderunner::testing
