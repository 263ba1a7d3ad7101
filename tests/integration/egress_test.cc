// The egress allowlist on a real engine: a job with "network": "allowlist"
// still has loopback only, and reaches the host's HTTP and HTTPS servers
// (started here, on the host's loopback) only through the service's proxy,
// only for the listed host, only at listed addresses, and within its byte
// budget; every request is in its record. What is checked is what crossed:
// the servers' own request logs, the bytes the job counted, the record.
#include <httplib.h>

#include <filesystem>
#include <mutex>
#include <thread>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The job's byte budget (egress.max_bytes), and what /big would send.
constexpr int64_t kMaxBytes = 256 << 10;
constexpr size_t kBigBytes = 4 << 20;

// An HTTP and an HTTPS server on the host's 127.0.0.1 (a self-signed
// certificate made with openssl), serving /hello and /big, every path
// recorded.
class HostServers {
 public:
  HostServers() {
    char tmpl[] = "/tmp/coderunner-egress-XXXXXX";
    dir_ = mkdtemp(tmpl);
    const std::string make =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost"
        " -keyout " +
        dir_ + "/key.pem -out " + dir_ + "/cert.pem 2>/dev/null";
    made_cert_ = std::system(make.c_str()) == 0;
    tls_ = std::make_unique<httplib::SSLServer>((dir_ + "/cert.pem").c_str(),
                                                (dir_ + "/key.pem").c_str());
    for (httplib::Server* s : {&plain_, static_cast<httplib::Server*>(tls_.get())}) {
      const std::string greeting = s == &plain_ ? "hi from the host" : "hi over tls";
      s->Get("/hello", [greeting](const httplib::Request&, httplib::Response& res) {
        res.set_content(greeting, "text/plain");
      });
      s->Get("/big", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(std::string(kBigBytes, 'x'), "application/octet-stream");
      });
      s->set_logger([this](const httplib::Request& req, const httplib::Response&) {
        std::lock_guard lock(mu_);
        paths_.push_back(req.path);
      });
    }
    http_port_ = plain_.bind_to_any_port("127.0.0.1");
    https_port_ = tls_->bind_to_any_port("127.0.0.1");
    threads_[0] = std::thread([this] { plain_.listen_after_bind(); });
    threads_[1] = std::thread([this] { tls_->listen_after_bind(); });
  }
  ~HostServers() {
    plain_.stop();
    tls_->stop();
    for (auto& t : threads_) t.join();
    fs::remove_all(dir_);
  }
  bool ready() const { return made_cert_ && tls_->is_valid() && http_port_ > 0; }
  int http_port() const { return http_port_; }
  int https_port() const { return https_port_; }
  std::vector<std::string> paths() {
    std::lock_guard lock(mu_);
    return paths_;
  }
  void ForgetPaths() {
    std::lock_guard lock(mu_);
    paths_.clear();
  }

 private:
  std::string dir_;
  bool made_cert_ = false;
  httplib::Server plain_;
  std::unique_ptr<httplib::SSLServer> tls_;
  int http_port_ = 0, https_port_ = 0;
  std::thread threads_[2];
  std::mutex mu_;
  std::vector<std::string> paths_;
};

class EgressTest : public EngineTest {
 protected:
  static void SetUpTestSuite() { servers_ = new HostServers(); }
  static void TearDownTestSuite() {
    delete servers_;
    servers_ = nullptr;
  }
  void SetUp() override {
    ASSERT_TRUE(servers_->ready()) << "openssl or the host's servers failed";
    servers_->ForgetPaths();
    EngineTest::SetUp();
  }
  // The tier of the tests' requests (auth: none's enterprise) may reach
  // "localhost" at both ports and "127.0.0.2" at the HTTP one, and of the
  // private addresses 127.0.0.1 only.
  std::string ExtraConfig() const override {
    const std::string http = std::to_string(servers_->http_port());
    const std::string https = std::to_string(servers_->https_port());
    return "egress: {max_bytes: " + std::to_string(kMaxBytes) +
           "}\ntiers: {enterprise: {egress_allow: [\"localhost:" + http +
           "\", \"localhost:" + https + "\", \"127.0.0.2:" + http +
           "\"], egress_private: [\"127.0.0.1/32\"]}}\njobs: {cache_ttl_s: 0}\n";
  }
  json Args() const {
    return json::array(
        {std::to_string(servers_->http_port()), std::to_string(servers_->https_port())});
  }

  static HostServers* servers_;
};

HostServers* EgressTest::servers_ = nullptr;

// The record's request for `host` with `method`; null if none.
json Request(const json& result, const std::string& method, const std::string& host, int port) {
  for (const json& r : result["egress"]["requests"]) {
    if (r["method"] == method && r["host"] == host && r["port"] == port) return r;
  }
  return nullptr;
}

TEST_F(EgressTest, OnlyTheListedHostIsReachedThroughTheProxyAndEveryRequestIsLogged) {
  json r = RunHostile("python", "egress_escape.py", {{"network", "allowlist"}, {"args", Args()}});
  ASSERT_EQ(r["status"], "succeeded") << r.dump();
  auto out = StdoutFields(r);
  EXPECT_EQ(out["IFACES"], "lo") << r["stdout"];
  EXPECT_EQ(out["PROXY"], "http://127.0.0.1:3128");
  EXPECT_EQ(out["DIRECT_HOST"], "ECONNREFUSED") << r["stdout"];
  EXPECT_EQ(out["DIRECT_NET"], "ENETUNREACH") << r["stdout"];
  EXPECT_EQ(out["ALLOWED"], "hi from the host") << r.dump();
  EXPECT_EQ(out["TLS"], "hi over tls") << r.dump();
  EXPECT_EQ(out["UNLISTED"], "HTTP403") << r["stdout"];
  EXPECT_EQ(out["PRIVATE"], "HTTP403") << r["stdout"];
  EXPECT_EQ(out["AS_SERVER"].rfind("HTTP/1.1 400 coderunner egress:", 0), 0u) << r["stdout"];
  const int64_t big = ReportedInt(r, "BIG_BYTES");
  EXPECT_LT(big, kMaxBytes);
  // The servers saw the allowed requests only: the refused ones never left.
  std::vector<std::string> paths = servers_->paths();
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{"/big", "/hello", "/hello"}));
  // The record: each request, its outcome and bytes, the budget kept.
  const int http = servers_->http_port();
  const json& log = r["egress"];
  EXPECT_LE(log["bytes"].get<int64_t>(), kMaxBytes) << log.dump();
  json allowed = Request(r, "GET", "localhost", http);
  EXPECT_EQ(allowed["outcome"], "ok") << log.dump();
  EXPECT_EQ(allowed["address"], "127.0.0.1");
  EXPECT_GT(allowed["bytes_in"].get<int64_t>(), 0);
  json tls = Request(r, "CONNECT", "localhost", servers_->https_port());
  EXPECT_EQ(tls["outcome"], "ok") << log.dump();
  EXPECT_GT(tls["bytes_out"].get<int64_t>(), 0);
  EXPECT_EQ(Request(r, "GET", "127.0.0.1", http)["outcome"], "refused_host") << log.dump();
  json private_one = Request(r, "GET", "127.0.0.2", http);
  EXPECT_EQ(private_one["outcome"], "refused_address") << log.dump();
  EXPECT_NE(private_one["detail"].get<std::string>().find("127.0.0.2"), std::string::npos);
  int byte_limits = 0;
  for (const json& one : log["requests"]) byte_limits += one["outcome"] == "byte_limit";
  EXPECT_EQ(byte_limits, 1) << log.dump();
}

TEST_F(EgressTest, AJobWithoutTheAllowlistHasNoProxyAndNoWayOut) {
  json r = RunUncached("python",
                       "import os, socket\n"
                       "print('PROXY ' + os.environ.get('HTTP_PROXY', ''))\n"
                       "try:\n"
                       "    socket.create_connection(('127.0.0.1', 3128), timeout=3)\n"
                       "    print('PROXY_PORT open')\n"
                       "except OSError as e:\n"
                       "    print('PROXY_PORT ' + os.strerror(e.errno))\n");
  ASSERT_EQ(r["status"], "succeeded") << r.dump();
  auto out = StdoutFields(r);
  EXPECT_EQ(out["PROXY"], "");
  EXPECT_EQ(out["PROXY_PORT"], "Connection refused");
  EXPECT_FALSE(r.contains("egress"));
  EXPECT_TRUE(servers_->paths().empty());
}

// A sandbox asks once, at its creation; its proxy lives with its container,
// is made again when a restarted service adopts it, and each call's answer
// lists the requests made since the last.
TEST_F(EgressTest, ASandboxReachesTheListedHostAndEachCallListsItsRequests) {
  const std::string id = CreateSandbox(R"({"language": "python", "network": "allowlist"})");
  ASSERT_FALSE(id.empty());
  EXPECT_EQ(server_->Get("/v1/sandboxes/" + id).json["network"], "allowlist");
  auto call = [&](const std::string& code) { return CallSandbox(id, code); };
  const std::string http = std::to_string(servers_->http_port());
  json first = call(
      "import urllib.request, urllib.error\n"
      "def fetch(url):\n"
      "    try:\n"
      "        return urllib.request.urlopen(url, timeout=20).read().decode()\n"
      "    except urllib.error.HTTPError as e:\n"
      "        return 'HTTP%d' % e.code\n"
      "print(fetch('http://localhost:" +
      http + "/hello'))\n");
  EXPECT_EQ(first["stdout"], "hi from the host\n") << first.dump();
  ASSERT_EQ(first["egress"]["requests"].size(), 1u) << first.dump();
  EXPECT_EQ(first["egress"]["requests"][0]["outcome"], "ok");
  // The interpreter lives on, and so does the proxy; only this call's.
  json second = call("print(fetch('http://127.0.0.1:" + http + "/hello'))\n");
  EXPECT_EQ(second["stdout"], "HTTP403\n") << second.dump();
  ASSERT_EQ(second["egress"]["requests"].size(), 1u) << second.dump();
  EXPECT_EQ(second["egress"]["requests"][0]["outcome"], "refused_host");
  // A restarted service adopts the container and listens in it again.
  ASSERT_TRUE(server_->Stop()) << server_->log();
  auto restarted = std::make_unique<ServerProcess>(*server_);
  ASSERT_TRUE(restarted->started()) << restarted->log();
  server_ = std::move(restarted);
  json third = call("print(fetch('http://localhost:" + http + "/hello'))\n");
  EXPECT_EQ(third["stdout"], "hi from the host\n") << third.dump();
  EXPECT_EQ(third["state_lost"], false);
  EXPECT_EQ(servers_->paths(), (std::vector<std::string>{"/hello", "/hello"}));
  EXPECT_EQ(server_->Call("DELETE", "/v1/sandboxes/" + id, "").status, 200);
  std::filesystem::remove(server_->workspace_dir() + "/sandboxes");
}

}  // namespace
}  // namespace coderunner::testing
