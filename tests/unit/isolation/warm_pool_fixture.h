// The warm pool's tests' engine (containers kept in memory) and fixture,
// shared by warm_pool_test.cc and warm_pool_reuse_test.cc.
#ifndef CODERUNNER_TESTS_UNIT_ISOLATION_WARM_POOL_FIXTURE_H_
#define CODERUNNER_TESTS_UNIT_ISOLATION_WARM_POOL_FIXTURE_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <condition_variable>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/engine/transport.h"
#include "coderunner/isolation/warm_pool.h"
#include "unit/engine/fake_transport.h"

namespace coderunner::isolation::pool_testing {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// An engine that keeps containers in memory: create records the body,
// attach blocks until the container dies or is removed (as a real attach
// stream does), inspect answers from the create body in Docker's shape.
class PoolEngine : public engine::Transport {
 public:
  struct Container {
    json create;
    bool started = false;
    bool dead = false;
    bool removed = false;
  };

  StatusOr<engine::HttpResponse> Do(const engine::HttpRequest& r) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (r.method == "POST" && r.path.rfind("/containers/create?name=", 0) == 0) {
      if (fail_creates_) return engine::HttpResponse{500, R"({"message":"scripted failure"})"};
      std::string id = "c" + std::to_string(++next_);
      containers_[id].create = json::parse(r.body);
      names_[r.path.substr(r.path.find("?name=") + 6)] = id;
      order_.push_back(id);
      // Created, but the connection dies before the answer arrives.
      if (lose_create_answers_) return UnavailableError("connection reset by peer");
      return engine::HttpResponse{201, json{{"Id", id}}.dump()};
    }
    std::string id = IdOf(r.path);
    if (auto named = names_.find(id); named != names_.end()) id = named->second;
    auto it = containers_.find(id);
    if (it == containers_.end()) return engine::HttpResponse{404, R"({"message":"no such"})"};
    Container& c = it->second;
    if (r.method == "POST" && r.path.find("/start") != std::string::npos) {
      c.started = true;
      return engine::HttpResponse{204, ""};
    }
    if (r.method == "GET" && r.path.find("/json") != std::string::npos) {
      return engine::HttpResponse{200, InspectOf(id, c).dump()};
    }
    if (r.method == "DELETE") {
      c.removed = true;
      cv_.notify_all();
      return engine::HttpResponse{204, ""};
    }
    if (r.method == "POST" && r.path.find("/kill") != std::string::npos) {
      c.dead = true;
      cv_.notify_all();
      return engine::HttpResponse{204, ""};
    }
    return engine::HttpResponse{404, R"({"message":"unscripted"})"};
  }

  StatusOr<engine::HttpResponse> Stream(const engine::HttpRequest& r, const engine::ChunkSink&,
                                        const std::function<void(long)>& on_response,
                                        engine::StreamAbort*) override {
    std::string id = IdOf(r.path);
    if (on_response) on_response(200);
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return containers_[id].dead || containers_[id].removed; });
    return engine::HttpResponse{200, ""};
  }

  // The container dies on its own (its attach stream ends).
  void Die(const std::string& id) {
    std::lock_guard<std::mutex> lock(mu_);
    containers_[id].dead = true;
    cv_.notify_all();
  }
  void set_fail_creates(bool v) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_creates_ = v;
  }
  void set_lose_create_answers(bool v) {
    std::lock_guard<std::mutex> lock(mu_);
    lose_create_answers_ = v;
  }
  // Inspect answers ReadonlyRootfs false: an engine that drops a field.
  void set_weaken_inspect(bool v) {
    std::lock_guard<std::mutex> lock(mu_);
    weaken_ = v;
  }
  std::vector<std::string> created() const {
    std::lock_guard<std::mutex> lock(mu_);
    return order_;
  }
  Container Get(const std::string& id) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = containers_.find(id);
    return it == containers_.end() ? Container{} : it->second;
  }
  int Live() const {
    std::lock_guard<std::mutex> lock(mu_);
    int n = 0;
    for (const auto& [id, c] : containers_) n += c.removed ? 0 : 1;
    return n;
  }

 private:
  static std::string IdOf(const std::string& path) {
    size_t start = path.find("/containers/") + 12;
    size_t end = path.find_first_of("/?", start);
    return path.substr(start, end == std::string::npos ? std::string::npos : end - start);
  }

  json InspectOf(const std::string& id, const Container& c) const {
    json inspect;
    inspect["Id"] = id;
    inspect["Image"] = "sha256:feed";
    inspect["State"] = {{"Running", c.started && !c.dead}, {"Status", "running"}};
    inspect["Config"] = {{"User", c.create["User"]},
                         {"Entrypoint", c.create["Entrypoint"]},
                         {"Cmd", c.create["Cmd"]},
                         {"Labels", c.create["Labels"]},
                         {"Env", json::array()}};
    inspect["HostConfig"] = c.create["HostConfig"];
    if (weaken_) inspect["HostConfig"]["ReadonlyRootfs"] = false;
    inspect["Mounts"] = testutil::MountsFromBinds(c.create["HostConfig"]["Binds"]);
    return inspect;
  }

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Container> containers_;
  std::map<std::string, std::string> names_;  // name -> id
  std::vector<std::string> order_;
  int next_ = 0;
  bool fail_creates_ = false;
  bool lose_create_answers_ = false;
  bool weaken_ = false;
};

inline LanguageSpec Python() {
  return {"python", "coderunner/python:3.11", "main.py", {"python3", "{file}"}, true, "", {}};
}
inline LanguageSpec Bash() {
  return {"bash", "coderunner/bash:5", "main.sh", {"bash", "{file}"}, false, "", {}};
}

inline JobSpec JobOf(LanguageSpec language, std::string id = "job-1") {
  JobSpec j;
  j.id = std::move(id);
  j.language = std::move(language);
  j.code = "print(1)";
  return j;
}

// Waits (bounded) until `done` holds; the bound only keeps a broken pool
// from hanging the test, it is not a timing assertion.
inline bool Eventually(const std::function<bool()>& done) {
  for (auto until = Clock::now() + std::chrono::seconds(20); Clock::now() < until;) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return done();
}

class WarmPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/coderunner-pool-XXXXXX";
    dir_ = mkdtemp(tmpl);
    settings_.init_host_path = "/opt/coderunner-init";
  }
  void TearDown() override {
    if (pool_) pool_->Stop();
    pool_.reset();
    std::filesystem::remove_all(dir_);
  }

  WarmPool& MakePool(PoolOptions options = {}) {
    options.max_idle_s = options.max_idle_s > 0 ? options.max_idle_s : 300;
    pool_ = std::make_unique<WarmPool>(containers_, policy_, uids_, options, dir_ + "/ws",
                                       dir_ + "/art", ArtifactCaps{}, &metrics_,
                                       std::chrono::seconds(60));
    return *pool_;
  }
  int Idle() { return pool_->GetStats().idle; }

  std::string dir_;
  PolicySettings settings_;
  PoolEngine engine_;
  engine::ContainerClient containers_{engine_, std::chrono::seconds(5)};
  ContainerPolicy policy_{settings_, "unit"};
  UidPool uids_{kDefaultFirstJobUid, 64};
  MetricsRegistry metrics_;
  std::unique_ptr<WarmPool> pool_;
};

}  // namespace coderunner::isolation::pool_testing

#endif  // CODERUNNER_TESTS_UNIT_ISOLATION_WARM_POOL_FIXTURE_H_
