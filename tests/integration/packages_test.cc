// Packages from a mirror, on a real engine: a job names Python packages,
// the service installs them with the host's pip from a real PEP 503 index
// (a directory of wheels the test builds, behind an HTTP server), outside
// the job, and the job imports them from a read-only layer. What is
// checked is what crossed: the index's own request log, the lock against
// the wheels' bytes, the layer's owner and modes on the host's disk, the
// errno a job meets at its layer, and nothing left in staging.
#include <httplib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

#include "coderunner/common/sha256.h"
#include "engine_fixture.h"
#include "job_requests.h"
#include "package_layers.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The index: tests/testdata/packages/make_python_mirror.py's wheels,
// served as static files on 127.0.0.1, every request path recorded.
class PythonMirror {
 public:
  PythonMirror() {
    char tmpl[] = "/tmp/coderunner-mirror-XXXXXX";
    dir_ = mkdtemp(tmpl);
    built_ = Rebuild("");
    server_.set_mount_point("/", dir_);
    server_.set_logger([this](const httplib::Request& req, const httplib::Response&) {
      std::lock_guard lock(mu_);
      paths_.push_back(req.path);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~PythonMirror() {
    server_.stop();
    thread_.join();
    fs::remove_all(dir_);
  }
  bool built() const { return built_; }
  // Builds the index again over the same directory, with make_python_mirror.py's
  // `flags` (--newer, --tamper): a mirror updated in place.
  bool Rebuild(const std::string& flags) {
    const std::string make = std::string("python3 ") + CODERUNNER_TESTDATA_DIR +
                             "/packages/make_python_mirror.py " + dir_ + " " + flags;
    return std::system(make.c_str()) == 0;
  }
  std::string IndexUrl() const { return "http://127.0.0.1:" + std::to_string(port_) + "/simple/"; }
  size_t Requests() {
    std::lock_guard lock(mu_);
    return paths_.size();
  }
  // The sha256 of a wheel as the index serves it.
  std::string WheelSha256(const std::string& file) const {
    std::ifstream in(dir_ + "/files/" + file, std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    return Sha256Hex(bytes.str());
  }

 private:
  std::string dir_;
  bool built_ = false;
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> paths_;
};

// Bytes a file of crbig holds: over the bound below.
constexpr int64_t kMaxInstalledBytes = 2 << 20;

class PackagesTest : public EngineTest {
 protected:
  static void SetUpTestSuite() { mirror_ = new PythonMirror(); }
  static void TearDownTestSuite() {
    delete mirror_;
    mirror_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(mirror_->built()) << "make_python_mirror.py failed";
    char tmpl[] = "/tmp/coderunner-packages-XXXXXX";
    packages_dir_ = mkdtemp(tmpl);
    EngineTest::SetUp();
  }
  void TearDown() override {
    EngineTest::TearDown();
    // Every install, finished or refused, left nothing in staging.
    EXPECT_TRUE(fs::is_empty(packages_dir_ + "/staging")) << packages_dir_;
    fs::remove_all(packages_dir_);
  }
  std::string ExtraConfig() const override {
    return PackagesYaml(mirror_->IndexUrl()) + "jobs: {cache_ttl_s: 0}\n";
  }
  // packages.* with the test's index, and `more` keys in the same map.
  std::string PackagesYaml(const std::string& index, const std::string& more = "") const {
    return "packages: {dir: \"" + packages_dir_ + "\", python_index_url: \"" + index +
           "\", deny: [crrefused], max_installed_bytes: " + std::to_string(kMaxInstalledBytes) +
           more + "}\n";
  }
  json WithPackages(const json& python) { return {{"packages", {{"python", python}}}}; }

  static PythonMirror* mirror_;
  std::string packages_dir_;
};

PythonMirror* PackagesTest::mirror_ = nullptr;

constexpr const char* kShoutPy =
    "import crdepends, crtiny\nprint(crdepends.shout('x'), crtiny.VERSION, crtiny.__file__)\n";

TEST_F(PackagesTest, ASetIsInstalledOnceAndItsLockNamesTheWheelsBytes) {
  json first = RunUncached("python", kShoutPy, WithPackages({"crdepends==2.0"}));
  ASSERT_EQ(first["status"], "succeeded") << first.dump();
  EXPECT_EQ(first["stdout"],
            "HELLO, X! 1.1 /workspace/.coderunner-packages/python/crtiny/__init__.py\n");
  const json& installed = first["packages"];
  EXPECT_EQ(installed["cached"], false);
  // The dependency's range chose the newest version, and the lock records
  // the very files the index served.
  EXPECT_EQ(installed["python"],
            json::array({{{"name", "crdepends"},
                          {"version", "2.0"},
                          {"sha256", mirror_->WheelSha256("crdepends-2.0-py3-none-any.whl")}},
                         {{"name", "crtiny"},
                          {"version", "1.1"},
                          {"sha256", mirror_->WheelSha256("crtiny-1.1-py3-none-any.whl")}}}));
  // The second job with the same set asks the index nothing.
  const size_t asked = mirror_->Requests();
  json second = RunUncached("python", kShoutPy, WithPackages({"crdepends==2.0"}));
  ASSERT_EQ(second["status"], "succeeded") << second.dump();
  EXPECT_EQ(second["packages"]["cached"], true);
  EXPECT_EQ(second["packages"]["python"], installed["python"]);
  EXPECT_EQ(mirror_->Requests(), asked);
  // One layer on disk, every entry root's and read-only to all.
  const int layers = CheckedLayers(packages_dir_ + "/layers");
  EXPECT_EQ(layers, 1);
}

// Most compiled wheels are tagged for an older glibc than the image's
// (manylinux2014: glibc 2.17); the image runs them, so they install.
TEST_F(PackagesTest, AWheelBuiltForAnOlderGlibcInstalls) {
  json r = RunUncached("python", "import crnative; print(crnative.KIND)",
                       WithPackages({"crnative==1.0"}));
  EXPECT_EQ(r["stdout"], "native\n") << r.dump();
  EXPECT_EQ(r["packages"]["python"][0]["sha256"],
            mirror_->WheelSha256("crnative-1.0-cp311-cp311-manylinux_2_17_x86_64.whl"));
}

TEST_F(PackagesTest, AJobMeetsItsLayerReadOnlyAndSeesNoOther) {
  json r = RunHostile("python", "package_layer_escape.py", WithPackages({"crtiny==1.0"}));
  ASSERT_EQ(r["status"], "succeeded") << r.dump();
  auto out = StdoutFields(r);
  // Two walls: the files are root's and 0644 (EACCES comes first), and
  // the mount is read-only (EROFS wherever permission would not stop it
  // first).
  EXPECT_EQ(out["WRITE"], "EACCES") << r["stdout"];
  EXPECT_EQ(out["PLANT"], "EROFS") << r["stdout"];
  EXPECT_EQ(out["CHMOD"], "EROFS") << r["stdout"];
  EXPECT_EQ(out["LIST"], "EACCES") << r["stdout"];
  EXPECT_EQ(out["RELINK"], "EROFS") << r["stdout"];
  EXPECT_EQ(out["VERSION"], "1.0") << r["stdout"];
  // A job that asked for none has no link, and imports nothing of them.
  json plain = RunUncached("python",
                           "import os\nprint(os.path.lexists('/workspace/.coderunner-packages'))\n"
                           "import crtiny\n");
  EXPECT_EQ(plain["stdout"], "False\n") << plain.dump();
  EXPECT_NE(plain["stderr"].get<std::string>().find("ModuleNotFoundError"), std::string::npos);
}

struct Refusal {
  json python;
  const char* code;
  const char* named;  // In the message.
};

TEST_F(PackagesTest, WhatCannotBeInstalledIsAnErrorNamingThePackageAndNothingRuns) {
  const Refusal kCases[] = {
      {{"nosuchpkg"}, "package_not_found", "nosuchpkg"},
      {{"crtiny==9.0"}, "package_not_found", "1.0, 1.1"},
      {{"crdepends==2.0", "crpinned==1.0"}, "package_conflict", "crtiny==1.0"},
      {{"crsneaky"}, "package_refused", "crrefused"},  // A dependency.
      {{"crbig"}, "packages_too_large", "max_installed_bytes"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.python.dump());
    ExpectRefusedBeforeRun(RunUncached("python", "print('ran')", WithPackages(c.python)), c.code,
                           c.named);
  }
  EXPECT_TRUE(fs::is_empty(packages_dir_ + "/layers"));
  // Refused where the request enters: a name the policy denies, and
  // anything but a name and version clauses (no options reach pip).
  const std::pair<json, const char*> kAtTheEdge[] = {
      {{"crrefused"}, "package_refused"},
      {{"--index-url=http://example.com/"}, "invalid_package"},
      {{"crtiny @ file:///etc/passwd"}, "invalid_package"},
      {{"crtiny; os_name == 'posix'"}, "invalid_package"},
  };
  for (const auto& [python, code] : kAtTheEdge) {
    json body = WithPackages(python);
    body["cache"] = false;
    HttpAnswer a = server_->Execute("python", "print('ran')", body);
    EXPECT_TRUE(a.status == 400 || a.status == 422) << a.body;
    EXPECT_EQ(a.json["error"]["code"], code) << a.body;
  }
}

// A replay installs exactly the files the original did, by hash, even
// after the index gained a newer version its range admits; and refuses to
// run when the file under that name changed.
TEST_F(PackagesTest, AReplayInstallsTheOriginalsFilesByHash) {
  PythonMirror mirror;  // Its own: this test changes it.
  ASSERT_TRUE(mirror.built());
  ServerProcess own(PackagesYaml(mirror.IndexUrl()) + "jobs: {cache_ttl_s: 0}\n");
  ASSERT_TRUE(own.started()) << own.log();
  const json request = {{"cache", false}, {"packages", {{"python", {"crtiny>=1.0"}}}}};
  const char* kCode = "import crtiny; print(crtiny.VERSION)";
  HttpAnswer first = own.Execute("python", kCode, request);
  ASSERT_EQ(first.json["stdout"], "1.1\n") << first.body;
  const json lock = first.json["packages"]["python"];
  ASSERT_TRUE(mirror.Rebuild("--newer"));
  // A fresh resolution now finds 1.2 ...
  HttpAnswer fresh = own.Execute(
      "python", kCode, {{"cache", false}, {"packages", {{"python", {"crtiny>=1.0,<9"}}}}});
  EXPECT_EQ(fresh.json["stdout"], "1.2\n") << fresh.body;
  // ... and the replay, 1.1, the very file. The layers are first removed
  // from this node's disk (as on another node, or after a cleanup), so
  // that each replay asks the index.
  auto replay = [&] {
    for (const auto& layer : fs::directory_iterator(packages_dir_ + "/layers")) {
      fs::remove_all(layer.path());
    }
    HttpAnswer a = own.Post("/v1/jobs/" + first.json["id"].get<std::string>() + "/replay", "");
    EXPECT_EQ(a.status, 202) << a.body;
    return WaitTerminal(own, a.json.value("id", ""));
  };
  json again = replay();
  EXPECT_EQ(again["result"]["stdout"], "1.1\n") << again.dump();
  EXPECT_EQ(again["result"]["packages"]["python"], lock) << again.dump();
  // The file under 1.1's name changes: the replay ends before anything
  // runs. (With the layer still on disk it would run from it: its files
  // are the original's, by hash.)
  ASSERT_TRUE(mirror.Rebuild("--newer --tamper"));
  json changed = replay();
  EXPECT_EQ(changed["status"], "error") << changed.dump();
  EXPECT_EQ(changed["result"]["error"]["code"], "package_changed") << changed.dump();
  EXPECT_EQ(changed["result"]["stdout"], "");
  EXPECT_TRUE(own.Stop());
}

// Layers are shared on disk, but what a request resolved to is each
// tenant's own: a tenant learns nothing of another's sets.
TEST_F(PackagesTest, AnotherTenantsSameSetTellsItNothing) {
  constexpr const char* kAcme = "acme-packages-key-0123456789";
  constexpr const char* kGlobex = "globex-packages-key-0123456789";
  ServerProcess keyed(ApiKeysYaml({{"acme", "pro", kAcme}, {"globex", "pro", kGlobex}}) +
                      PackagesYaml(mirror_->IndexUrl()) + "jobs: {cache_ttl_s: 0}\n");
  ASSERT_TRUE(keyed.started()) << keyed.log();
  auto run = [&](const char* key) {
    json body = {{"language", "python"},
                 {"code", "import crtiny; print(crtiny.VERSION)"},
                 {"packages", {{"python", {"crtiny==1.1"}}}}};
    return keyed.Call("POST", "/v1/execute", key, body.dump()).json;
  };
  json acme = run(kAcme);
  ASSERT_EQ(acme["stdout"], "1.1\n") << acme.dump();
  EXPECT_EQ(acme["packages"]["cached"], false);
  const size_t asked = mirror_->Requests();
  json globex = run(kGlobex);
  ASSERT_EQ(globex["stdout"], "1.1\n") << globex.dump();
  EXPECT_EQ(globex["packages"]["cached"], false);  // pip ran for globex too...
  EXPECT_GT(mirror_->Requests(), asked);
  EXPECT_EQ(globex["packages"]["python"], acme["packages"]["python"]);
  EXPECT_EQ(run(kAcme)["packages"]["cached"], true);  // ...and acme's stays acme's.
  EXPECT_TRUE(keyed.Stop());
}

TEST_F(PackagesTest, AMirrorThatIsDownIsNotAPackageThatIsMissing) {
  const std::string down = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/simple/";
  ServerProcess other(PackagesYaml(down));
  ASSERT_TRUE(other.started()) << other.log();
  HttpAnswer a = other.Execute("python", "print('ran')",
                               {{"cache", false}, {"packages", {{"python", {"crtiny"}}}}});
  EXPECT_EQ(a.json["status"], "error") << a.body;
  EXPECT_EQ(a.json["error"]["code"], "package_mirror_unavailable") << a.body;
  EXPECT_NE(a.body.find(down), std::string::npos) << a.body;
  EXPECT_TRUE(other.Stop());
}

// In a sandbox, `pip install` is the service's: the shim first on PATH
// asks the package gateway, the service installs outside the sandbox
// under the same policy, and the set, grown by each install, stays for
// the sandbox's life.
TEST_F(PackagesTest, PipInstallInASandboxAsksTheServiceAndTheSetStaysForItsLife) {
  const std::string id = CreateSandbox(R"({"language": "python"})");
  ASSERT_FALSE(id.empty());
  auto call = [&](const std::string& code) { return CallSandbox(id, code).value("stdout", ""); };
  auto pip = [&](const std::string& args) {
    return call("import subprocess\nr = subprocess.run('pip install " + args +
                "', shell=True, capture_output=True, text=True)\n"
                "print(r.returncode, (r.stdout + r.stderr).strip())");
  };
  EXPECT_EQ(pip("crtiny==1.0"), "0 Successfully installed crtiny-1.0\n");
  // The interpreter that was already running imports it.
  EXPECT_EQ(call("import crtiny; print(crtiny.VERSION)"), "1.0\n");
  // A second install keeps the first: one set.
  EXPECT_EQ(pip("-q crnative==1.0"), "0 Successfully installed crnative-1.0 crtiny-1.0\n");
  // The policy, the grammar and the resolver are the jobs' own.
  EXPECT_NE(pip("crsneaky").find("1 ERROR: package_refused"), std::string::npos);
  EXPECT_NE(pip("--index-url=http://example.com/ x").find("2 ERROR: pip install --index-url"),
            std::string::npos);
  EXPECT_NE(pip("nosuchpkg").find("1 ERROR: package_not_found"), std::string::npos);
  // The API route does the same: crtiny 1.1 replaces 1.0.
  HttpAnswer added =
      server_->Post("/v1/sandboxes/" + id + "/packages", R"({"python": ["crtiny==1.1"]})");
  ASSERT_EQ(added.status, 200) << added.body;
  EXPECT_EQ(added.json["requested"], json::array({"crnative==1.0", "crtiny==1.1"})) << added.body;
  EXPECT_EQ(call("import subprocess\nprint(subprocess.run(['python3', '-c', "
                 "'import crtiny, crnative; print(crtiny.VERSION, crnative.KIND)'], "
                 "capture_output=True, text=True).stdout)"),
            "1.1 native\n\n");
  EXPECT_EQ(server_->Call("GET", "/v1/sandboxes/" + id, "").json["packages"],
            added.json["requested"]);
  // The gateway holds against the sandbox's own program.
  HttpAnswer abuse = server_->Post(
      "/v1/sandboxes/" + id + "/execute",
      json{{"code", HostileProgram("gateway_abuse.py")}, {"timeout_ms", 25000}}.dump());
  ASSERT_EQ(abuse.status, 200) << abuse.body;
  auto out = StdoutFields(abuse.json);
  // While one silent connection holds the sandbox's turn, the others are
  // told so at once; alone, each abuse is refused by its code.
  EXPECT_EQ(out["SILENT"], "8") << abuse.body;
  // (Or, the gateway slower to accept than they come, by the kernel at a
  // full backlog: seen under the sanitizers.)
  EXPECT_TRUE(out["REFUSED"] == "sandbox_busy" || out["REFUSED"] == "BlockingIOError")
      << abuse.body;
  EXPECT_TRUE(out["AGAIN_HUGE"] == "invalid_request" || out["AGAIN_HUGE"] == "closed")
      << abuse.body;
  EXPECT_EQ(out["AGAIN_DEEP"], "invalid_request") << abuse.body;
  EXPECT_EQ(out["AGAIN_ECOSYSTEM"], "invalid_request") << abuse.body;
  EXPECT_EQ(out["AGAIN_OPTION"], "invalid_package") << abuse.body;
  EXPECT_EQ(out["AGAIN_REFUSED"], "package_refused") << abuse.body;
  EXPECT_EQ(out["INSTALL"], "ok") << abuse.body;
  EXPECT_EQ(server_->Call("DELETE", "/v1/sandboxes/" + id, "").status, 200);
  std::filesystem::remove(server_->workspace_dir() + "/sandboxes");
}

// The layers on disk are bounded: past packages.max_layers_bytes, the ones
// nothing holds go, least recently used first; a sandbox's stays.
TEST_F(PackagesTest, PastTheLayersBoundUnheldLayersGoAndASandboxsStays) {
  // Room for about one layer of these wheels (some 40 KiB each on disk).
  ServerProcess own(PackagesYaml(mirror_->IndexUrl(), ", max_layers_bytes: 65536") +
                    "jobs: {cache_ttl_s: 0}\n");
  ASSERT_TRUE(own.started()) << own.log();
  HttpAnswer created = own.Post("/v1/sandboxes", R"({"language": "python"})");
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = created.json["id"];
  HttpAnswer held = own.Post("/v1/sandboxes/" + id + "/packages", R"({"python": ["crtiny==1.0"]})");
  ASSERT_EQ(held.status, 200) << held.body;
  auto run = [&](const char* requirement) {
    return own
        .Execute("python", "print('ran')",
                 {{"cache", false}, {"packages", {{"python", {requirement}}}}})
        .json;
  };
  for (const char* requirement : {"crtiny==1.1", "crdepends==2.0", "crnative==1.0"}) {
    json r = run(requirement);
    EXPECT_EQ(r["stdout"], "ran\n") << r.dump();
  }
  // The sandbox's layer and the last job's: each earlier job's went.
  EXPECT_EQ(CheckedLayers(packages_dir_ + "/layers"), 2);
  HttpAnswer imported = own.Post("/v1/sandboxes/" + id + "/execute",
                                 json{{"code", "import crtiny; print(crtiny.VERSION)"}}.dump());
  EXPECT_EQ(imported.json["stdout"], "1.0\n") << imported.body;
  // A set whose layer went is installed again when asked for.
  json again = run("crtiny==1.1");
  EXPECT_EQ(again["stdout"], "ran\n") << again.dump();
  EXPECT_EQ(again["packages"]["cached"], false) << again.dump();
  EXPECT_EQ(own.Call("DELETE", "/v1/sandboxes/" + id, "").status, 200);
  std::filesystem::remove(own.workspace_dir() + "/sandboxes");
  EXPECT_TRUE(own.Stop());
}

// The process that runs the installs (pip imported once, forked per
// install) dies, killed or out of memory: the next install starts another.
TEST_F(PackagesTest, AnInstallAfterTheInstallerDiedStartsAnother) {
  json first =
      RunUncached("python", "import crtiny; print(crtiny.VERSION)", WithPackages({"crtiny==1.0"}));
  ASSERT_EQ(first["stdout"], "1.0\n") << first.dump();
  const pid_t zygote = LiveChild(server_->pid(), "python3");
  ASSERT_GT(zygote, 0) << "no install zygote under the service";
  ASSERT_EQ(kill(zygote, SIGKILL), 0);
  while (LiveChild(server_->pid(), "python3") == zygote) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  json second =
      RunUncached("python", "import crtiny; print(crtiny.VERSION)", WithPackages({"crtiny==1.1"}));
  EXPECT_EQ(second["stdout"], "1.1\n") << second.dump();
  const pid_t next = LiveChild(server_->pid(), "python3");
  EXPECT_GT(next, 0);
  EXPECT_NE(next, zygote);
}

}  // namespace
}  // namespace coderunner::testing
