// Webhook deliveries are signed with the tenant's key, verifiable with
// nothing but Python's standard library, and one tenant's receivers that
// never answer do not delay another tenant's deliveries.
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
using std::chrono::seconds;

constexpr const char* kAcmeKey = "acme-hook-key-0123456789";
constexpr const char* kGlobexKey = "globex-hook-key-0123456789";

// The verification of docs/api.md, as a receiver would run it: argv = secret file,
// tenant, signature header, body file. Exit 0 if the signature is valid.
constexpr const char* kVerifyPy = R"PY(
import hashlib, hmac, sys, time

def tenant_key(secret: bytes, tenant: str) -> bytes:
    return hmac.new(secret, b"coderunner-webhook-key:" + tenant.encode(), hashlib.sha256).hexdigest().encode()

def verify(key: bytes, header: str, body: bytes, tolerance_s: int = 300) -> bool:
    parts = dict(p.split("=", 1) for p in header.split(","))
    t, sig = parts["t"], parts["v1"]
    if abs(time.time() - int(t)) > tolerance_s:
        return False
    expected = hmac.new(key, t.encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, sig)

secret = open(sys.argv[1], "rb").read().strip()
body = open(sys.argv[4], "rb").read()
sys.exit(0 if verify(tenant_key(secret, sys.argv[2]), sys.argv[3], body) else 1)
)PY";

// An HTTP receiver on 127.0.0.1 recording each delivery. With `hold`, its
// handler does not answer until Release() (a receiver that never answers).
class Receiver {
 public:
  struct Delivery {
    std::string body;
    std::string signature;
  };

  explicit Receiver(bool hold) : hold_(hold) {
    server_.Post("/hook", [this](const httplib::Request& req, httplib::Response& res) {
      std::unique_lock lock(mu_);
      got_.push_back({req.body, req.get_header_value("X-Coderunner-Signature")});
      cv_.notify_all();
      if (hold_) cv_.wait_for(lock, seconds(300), [&] { return released_; });
      res.status = 200;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~Receiver() {
    Release();
    server_.stop();
    thread_.join();
  }
  void Release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  std::vector<Delivery> got() {
    std::lock_guard lock(mu_);
    return got_;
  }
  // Distinct job ids among the deliveries (retries repeat one).
  std::set<std::string> Jobs() {
    std::lock_guard lock(mu_);
    return JobsLocked();
  }
  // Waits until `n` distinct jobs were delivered (first attempts count).
  // The count is taken under the lock the handler notifies under, so a
  // delivery landing between a check and the wait is never missed.
  bool WaitJobs(size_t n, seconds timeout) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return JobsLocked().size() >= n; });
  }

 private:
  std::set<std::string> JobsLocked() const {
    std::set<std::string> ids;
    for (const auto& d : got_) {
      json j = json::parse(d.body, nullptr, false);
      if (j.is_object()) ids.insert(j.value("id", ""));
    }
    return ids;
  }

  const bool hold_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool released_ = false;
  std::vector<Delivery> got_;
  httplib::Server server_;  // Declared after what its handlers use.
  int port_ = 0;
  std::thread thread_;
};

class WebhooksTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return ApiKeysYaml({{"acme", "pro", kAcmeKey}, {"globex", "pro", kGlobexKey}}) +
           "jobs: {webhook_allow_private: true, max_concurrent: 3}\n";
  }

  std::string Submit(const std::string& key, const std::string& code, const std::string& url) {
    json body = {{"language", "python"}, {"code", code}, {"cache", false}, {"callback_url", url}};
    HttpAnswer a = server_->Call("POST", "/v1/jobs", key, body.dump());
    EXPECT_EQ(a.status, 202) << a.body;
    return a.json.value("id", "");
  }

  // Runs kVerifyPy; true if it accepts.
  bool PythonVerifies(const std::string& secret, const std::string& tenant,
                      const Receiver::Delivery& d) {
    const std::string dir = server_->data_dir();
    std::ofstream(dir + "/verify.py") << kVerifyPy;
    std::ofstream(dir + "/test_secret") << secret;
    std::ofstream(dir + "/body", std::ios::binary) << d.body;
    std::string cmd = "python3 " + dir + "/verify.py " + dir + "/test_secret '" + tenant + "' '" +
                      d.signature + "' " + dir + "/body";
    return std::system(cmd.c_str()) == 0;
  }
};

TEST_F(WebhooksTest, EveryDeliveryIsSignedWithTheTenantsKeyAndVerifiable) {
  Receiver hook(/*hold=*/false);
  std::string id = Submit(kAcmeKey, "print('signed')", hook.Url());
  ASSERT_TRUE(hook.WaitJobs(1, seconds(120))) << server_->log();
  Receiver::Delivery d = hook.got()[0];
  EXPECT_EQ(json::parse(d.body)["id"], id);
  ASSERT_EQ(d.signature.rfind("t=", 0), 0u) << d.signature;
  ASSERT_NE(d.signature.find(",v1="), std::string::npos) << d.signature;

  // The service made its secret at the first start, readable only by it.
  std::ifstream in(server_->data_dir() + "/webhook_secret");
  std::string secret;
  std::getline(in, secret);
  ASSERT_EQ(secret.size(), 64u);

  EXPECT_TRUE(PythonVerifies(secret, "acme", d));
  EXPECT_FALSE(PythonVerifies("wrong secret", "acme", d)) << "a wrong secret verified";
  EXPECT_FALSE(PythonVerifies(secret, "globex", d)) << "another tenant's key verified";
  Receiver::Delivery tampered = d;
  tampered.body.replace(tampered.body.find("signed"), 6, "forged");
  EXPECT_FALSE(PythonVerifies(secret, "acme", tampered)) << "a changed body verified";
  Receiver::Delivery replayed = d;
  replayed.signature = "t=1000000000" + d.signature.substr(d.signature.find(','));
  EXPECT_FALSE(PythonVerifies(secret, "acme", replayed)) << "an old timestamp verified";
}

TEST_F(WebhooksTest, ATenantWhoseReceiverNeverAnswersDelaysOnlyItsOwnDeliveries) {
  Receiver hole(/*hold=*/true);
  Receiver good(/*hold=*/false);
  std::vector<std::string> acme;
  for (int i = 0; i < 4; ++i)
    acme.push_back(Submit(kAcmeKey, "print(" + std::to_string(i) + ")", hole.Url()));
  for (const auto& id : acme) {
    HttpAnswer w = server_->Call("GET", "/v1/jobs/" + id + "/wait?timeout_s=120", kAcmeKey);
    ASSERT_EQ(w.json["status"], "succeeded") << w.body;
  }
  // acme's four deliveries are queued, and the first hangs at its receiver.
  ASSERT_TRUE(hole.WaitJobs(1, seconds(60)));

  std::string mine = Submit(kGlobexKey, "print('mine')", good.Url());
  ASSERT_TRUE(good.WaitJobs(1, seconds(60))) << "globex's webhook waited behind acme's receiver\n"
                                             << server_->log();
  EXPECT_EQ(*good.Jobs().begin(), mine);
  // acme had one delivery out at a time: its others waited in its own queue.
  EXPECT_EQ(hole.Jobs().size(), 1u);

  hole.Release();
  EXPECT_TRUE(hole.WaitJobs(4, seconds(120))) << "acme's deliveries resume once it answers";
}

}  // namespace
}  // namespace coderunner::testing
