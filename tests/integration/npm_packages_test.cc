// npm packages from a registry, on a real engine: a job names npm
// packages, the service installs them with the host's npm from a real
// verdaccio (tests/testdata/packages/npm_mirror.py publishes tiny packages
// into it), outside the job and with no install script run, and the job
// loads them, by require() and by import, from a read-only layer. What is
// checked is what crossed: the lock against the registry's own integrity,
// the layer's owner and modes on the host's disk, the marker files an
// install script would have left, the errno a job meets at its layer, and
// nothing left in staging.
#include <httplib.h>

#include <filesystem>

#include "engine_fixture.h"
#include "job_requests.h"
#include "package_layers.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// What crscript's install scripts write when they run: never here.
constexpr char kScriptMarker[] = "/tmp/coderunner-npm-postinstall-ran";
// Bytes one install may write: under crbig's 3 MiB blob with npm's cache.
constexpr int64_t kMaxInstalledBytes = 4 << 20;

// verdaccio on 127.0.0.1, its storage in a directory of its own.
class NpmMirror {
 public:
  NpmMirror() : port_(ClosedPort()) {
    char tmpl[] = "/tmp/coderunner-npm-mirror-XXXXXX";
    dir_ = mkdtemp(tmpl);
    started_ = Script("start --verdaccio-dir " + std::string(CODERUNNER_NPM_MIRROR_DIR) +
                      " --dir " + dir_ + " --port " + std::to_string(port_));
  }
  ~NpmMirror() {
    Script("stop --dir " + dir_);
    fs::remove_all(dir_);
  }
  bool started() const { return started_; }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/"; }
  bool Script(const std::string& args) const {
    const std::string cmd = std::string("python3 ") + CODERUNNER_TESTDATA_DIR +
                            "/packages/npm_mirror.py " + args + " > /dev/null";
    return std::system(cmd.c_str()) == 0;
  }
  bool Publish(const std::string& name, const std::string& version) const {
    return Script("publish --dir " + dir_ + " --port " + std::to_string(port_) + " --name " + name +
                  " --version " + version);
  }
  bool Tamper(const std::string& name, const std::string& version) const {
    return Script("tamper --dir " + dir_ + " --name " + name + " --version " + version);
  }
  // The integrity the registry gives for name@version.
  std::string Integrity(const std::string& name, const std::string& version) const {
    httplib::Client client("127.0.0.1", port_);
    auto res = client.Get("/" + name);
    if (!res || res->status != 200) return "";
    json doc = json::parse(res->body, nullptr, false);
    return doc["versions"][version]["dist"].value("integrity", "");
  }

 private:
  int port_;
  std::string dir_;
  bool started_ = false;
};

class NpmPackagesTest : public EngineTest {
 protected:
  void SetUp() override {
    mirror_ = std::make_unique<NpmMirror>();
    ASSERT_TRUE(mirror_->started()) << "npm_mirror.py start failed (scripts/install-deps.sh "
                                       "installs verdaccio into "
                                    << CODERUNNER_NPM_MIRROR_DIR << ")";
    char tmpl[] = "/tmp/coderunner-packages-XXXXXX";
    packages_dir_ = mkdtemp(tmpl);
    fs::remove(kScriptMarker);
    EngineTest::SetUp();
  }
  void TearDown() override {
    EngineTest::TearDown();
    // Every install, finished or refused, left nothing in staging.
    EXPECT_TRUE(fs::is_empty(packages_dir_ + "/staging")) << packages_dir_;
    fs::remove_all(packages_dir_);
    mirror_.reset();
  }
  std::string ExtraConfig() const override {
    return PackagesYaml(mirror_->Url()) + "jobs: {cache_ttl_s: 0}\n";
  }
  std::string PackagesYaml(const std::string& registry) const {
    return "packages: {dir: \"" + packages_dir_ + "\", npm_registry_url: \"" + registry +
           "\", npm_deny: [crdenied], max_installed_bytes: " + std::to_string(kMaxInstalledBytes) +
           "}\n";
  }
  static json WithNpm(const json& npm) { return {{"packages", {{"npm", npm}}}}; }

  std::unique_ptr<NpmMirror> mirror_;
  std::string packages_dir_;
};

TEST_F(NpmPackagesTest, ASetIsInstalledOnceWithoutItsScriptsAndLoadsByRequireAndImport) {
  const json wanted = {"crdep@1", "crscript@1.0.0"};
  json first =
      RunUncached("javascript", "console.log(require('crdep')('x'), require('crleft').VERSION)",
                  WithNpm(wanted));
  ASSERT_EQ(first["status"], "succeeded") << first.dump();
  EXPECT_EQ(first["stdout"], "[    x] 1.1.0\n");
  const json& installed = first["packages"];
  EXPECT_EQ(installed["cached"], false);
  // The range chose the newest 1.x, and the lock records the very tarballs
  // the registry serves.
  EXPECT_EQ(installed["npm"], json::array({{{"name", "crdep"},
                                            {"version", "1.0.0"},
                                            {"integrity", mirror_->Integrity("crdep", "1.0.0")},
                                            {"path", "node_modules/crdep"}},
                                           {{"name", "crleft"},
                                            {"version", "1.1.0"},
                                            {"integrity", mirror_->Integrity("crleft", "1.1.0")},
                                            {"path", "node_modules/crleft"}},
                                           {{"name", "crscript"},
                                            {"version", "1.0.0"},
                                            {"integrity", mirror_->Integrity("crscript", "1.0.0")},
                                            {"path", "node_modules/crscript"}}}));
  // crscript's preinstall, install and postinstall scripts never ran: not
  // on the host (its marker), not in the layer (its file beside itself).
  EXPECT_FALSE(fs::exists(kScriptMarker));
  // The second job, TypeScript by import, asks the registry nothing new.
  json second = RunUncached("typescript", "import crdep from 'crdep';\nconsole.log(crdep('y'));\n",
                            WithNpm(wanted));
  ASSERT_EQ(second["status"], "succeeded") << second.dump();
  EXPECT_EQ(second["stdout"], "[    y]\n");
  EXPECT_EQ(second["packages"]["cached"], true);
  EXPECT_EQ(second["packages"]["npm"], installed["npm"]);
  // One layer on disk, every entry root's and read-only to all.
  const int layers = CheckedLayers(packages_dir_ + "/layers");
  for (const auto& layer : fs::directory_iterator(packages_dir_ + "/layers")) {
    EXPECT_TRUE(fs::exists(layer.path() / "node_modules/crscript/index.js"));
    EXPECT_FALSE(fs::exists(layer.path() / "node_modules/crscript/ran-postinstall"));
  }
  EXPECT_EQ(layers, 1);
  // What a job meets at its layer.
  json hostile = RunHostile("javascript", "npm_layer_escape.js", WithNpm(wanted));
  ASSERT_EQ(hostile["status"], "succeeded") << hostile.dump();
  auto out = StdoutFields(hostile);
  EXPECT_EQ(out["WRITE"], "EACCES") << hostile["stdout"];
  EXPECT_EQ(out["PLANT"], "EROFS") << hostile["stdout"];
  EXPECT_EQ(out["CHMOD"], "EROFS") << hostile["stdout"];
  EXPECT_EQ(out["LIST"], "EACCES") << hostile["stdout"];
  EXPECT_EQ(out["RELINK"], "EROFS") << hostile["stdout"];
  EXPECT_EQ(out["LOADS"], "[    x]") << hostile["stdout"];
}

TEST_F(NpmPackagesTest, WhatCannotBeInstalledIsAnErrorNamingThePackageAndNothingRuns) {
  const struct {
    json npm;
    const char* code;
    const char* named;  // In the message.
  } kCases[] = {
      {{"crnothere"}, "package_not_found", "crnothere"},
      {{"crleft@9"}, "package_not_found", "crleft@9"},
      {{"crleft@1", "crpeer@1"}, "package_conflict", "crpeer@1.0.0"},
      {{"crbig"}, "packages_too_large", "max_installed_bytes"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.npm.dump());
    ExpectRefusedBeforeRun(RunUncached("javascript", "console.log('ran')", WithNpm(c.npm)), c.code,
                           c.named);
  }
  EXPECT_TRUE(fs::is_empty(packages_dir_ + "/layers"));
  // Refused where the request enters: a name the policy denies, anything
  // but a name and a range (no option, URL, path or alias reaches npm),
  // two ecosystems at once, a file where the packages go.
  const std::pair<json, const char*> kAtTheEdge[] = {
      {WithNpm({"crdenied@1"}), "package_refused"},
      {WithNpm({"--foreground-scripts"}), "invalid_package"},
      {WithNpm({"crleft@file:../../etc"}), "invalid_package"},
      {WithNpm({"crleft@npm:crdenied@1"}), "invalid_package"},
      {{{"packages", {{"npm", {"crleft"}}, {"python", {"crtiny"}}}}}, "invalid_request"},
      {{{"packages", {{"npm", {"crleft"}}}},
        {"files", {{{"path", "node_modules/crleft/index.js"}, {"content", "owned"}}}}},
       "invalid_path"},
  };
  for (const auto& [body, code] : kAtTheEdge) {
    json request = body;
    request["cache"] = false;
    HttpAnswer a = server_->Execute("javascript", "console.log('ran')", request);
    EXPECT_TRUE(a.status == 400 || a.status == 422) << a.body;
    EXPECT_EQ(a.json["error"]["code"], code) << a.body;
  }
  // A registry that is down is not a package that is missing.
  const std::string down = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/";
  ServerProcess other(PackagesYaml(down));
  ASSERT_TRUE(other.started()) << other.log();
  HttpAnswer a = other.Execute("javascript", "console.log('ran')",
                               {{"cache", false}, {"packages", {{"npm", {"crleft"}}}}});
  EXPECT_EQ(a.json["error"]["code"], "package_mirror_unavailable") << a.body;
  EXPECT_NE(a.body.find(down), std::string::npos) << a.body;
  EXPECT_TRUE(other.Stop());
}

// A replay installs exactly the tarballs the original did, by integrity,
// even after the registry gained a version the range admits; and refuses
// to run when the tarball under that version changed.
TEST_F(NpmPackagesTest, AReplayInstallsTheOriginalsTarballsByIntegrity) {
  const char* kCode = "console.log(require('crleft').VERSION)";
  json first = RunUncached("javascript", kCode, WithNpm({"crdep@^1"}));
  ASSERT_EQ(first["stdout"], "1.1.0\n") << first.dump();
  const json lock = first["packages"]["npm"];
  ASSERT_TRUE(mirror_->Publish("crleft", "1.2.0"));
  json fresh = RunUncached("javascript", kCode, WithNpm({"crdep@1"}));
  EXPECT_EQ(fresh["stdout"], "1.2.0\n") << fresh.dump();
  auto replay = [&] {
    // The layers go first (as on another node), so that each replay asks
    // the registry.
    for (const auto& layer : fs::directory_iterator(packages_dir_ + "/layers")) {
      fs::remove_all(layer.path());
    }
    HttpAnswer a = server_->Post("/v1/jobs/" + first["id"].get<std::string>() + "/replay", "");
    EXPECT_EQ(a.status, 202) << a.body;
    return WaitTerminal(*server_, a.json.value("id", ""));
  };
  json again = replay();
  EXPECT_EQ(again["result"]["stdout"], "1.1.0\n") << again.dump();
  EXPECT_EQ(again["result"]["packages"]["npm"], lock) << again.dump();
  ASSERT_TRUE(mirror_->Tamper("crleft", "1.1.0"));
  json changed = replay();
  EXPECT_EQ(changed["status"], "error") << changed.dump();
  EXPECT_EQ(changed["result"]["error"]["code"], "package_changed") << changed.dump();
  EXPECT_EQ(changed["result"]["stdout"], "");
}

// In a sandbox, `npm install` is the service's: the shim first on PATH
// asks the package gateway, and the set stays for the sandbox's life.
TEST_F(NpmPackagesTest, NpmInstallInASandboxAsksTheServiceAndTheSetStaysForItsLife) {
  const std::string id = CreateSandbox(R"({"language": "javascript"})");
  ASSERT_FALSE(id.empty());
  auto call = [&](const std::string& code) { return CallSandbox(id, code).value("stdout", ""); };
  auto npm = [&](const std::string& args) {
    return call("{ const r = require('child_process').spawnSync('npm install " + args +
                "', {shell: true, encoding: 'utf8'});\n"
                "console.log(r.status, (r.stdout + r.stderr).trim()); }");
  };
  EXPECT_EQ(npm("crdep@1"), "0 added 2 packages (crdep@1.0.0, crleft@1.1.0)\n");
  EXPECT_EQ(call("console.log(require('crdep')('x'))"), "[    x]\n");
  EXPECT_EQ(npm("@crscope/crscoped@1"),
            "0 added 3 packages (@crscope/crscoped@1.0.0, crdep@1.0.0, crleft@1.1.0)\n");
  // No install script ran; the policy and the grammar are the jobs' own.
  EXPECT_EQ(npm("crscript@1"),
            "0 added 4 packages (@crscope/crscoped@1.0.0, crdep@1.0.0, crleft@1.1.0, "
            "crscript@1.0.0)\n");
  EXPECT_FALSE(fs::exists(kScriptMarker));
  EXPECT_NE(npm("crdenied").find("1 npm error package_refused"), std::string::npos);
  EXPECT_NE(npm("--registry=http://example.com/ x").find("2 npm error npm install --registry"),
            std::string::npos);
  // A process started elsewhere (NODE_PATH) loads them too.
  EXPECT_EQ(call("console.log(require('child_process').execSync(\"cd /tmp && node -e "
                 "'console.log(require(`@crscope/crscoped`))'\").toString().trim())"),
            "scoped\n");
  EXPECT_EQ(server_->Call("DELETE", "/v1/sandboxes/" + id, "").status, 200);
  std::filesystem::remove(server_->workspace_dir() + "/sandboxes");
}

}  // namespace
}  // namespace coderunner::testing
