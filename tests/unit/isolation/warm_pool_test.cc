#include "coderunner/isolation/warm_pool.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "warm_pool_fixture.h"

namespace coderunner::isolation {
namespace {

using nlohmann::json;
using namespace pool_testing;  // NOLINT: the fixture's engine and helpers.

TEST_F(WarmPoolTest, StartFillsEachLanguageToItsSize) {
  PoolOptions o;
  o.size = 2;
  o.sizes = {{"bash", 1}};
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python()), JobOf(Bash())});
  ASSERT_TRUE(Eventually([&] { return Idle() == 3; })) << Idle();
  std::map<std::string, int> by_language;
  for (const auto& id : engine_.created()) {
    json body = engine_.Get(id).create;
    ++by_language[body["Labels"][kLabelLanguage].get<std::string>()];
    EXPECT_EQ(body["Labels"][kLabelPool], pool.token());
    EXPECT_TRUE(engine_.Get(id).started);
  }
  EXPECT_EQ(by_language["python"], 2);
  EXPECT_EQ(by_language["bash"], 1);
  EXPECT_EQ(metrics_.Value("coderunner_pool_idle", {{"language", "python"}}), 2);
}

TEST_F(WarmPoolTest, EachContainerServesExactlyOneJobAndIsRemovedAfterIt) {
  PoolOptions o;
  o.size = 2;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  std::set<std::string> served;
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(Eventually([&] { return Idle() >= 1; }));
    auto c = pool.Take(JobOf(Python(), "job-" + std::to_string(i)));
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(served.insert(c->id).second) << c->id << " handed out twice";
    std::string id = c->id;
    pool.Retire(std::move(c));
    ASSERT_TRUE(Eventually([&] { return engine_.Get(id).removed; })) << id;
  }
  EXPECT_EQ(pool.GetStats().hits, 6u);
}

TEST_F(WarmPoolTest, TakenContainersAreRefilled) {
  PoolOptions o;
  o.size = 3;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  ASSERT_TRUE(Eventually([&] { return Idle() == 3; }));
  std::vector<std::unique_ptr<PooledContainer>> taken;
  for (int i = 0; i < 3; ++i) taken.push_back(pool.Take(JobOf(Python())));
  for (const auto& c : taken) ASSERT_NE(c, nullptr);
  ASSERT_TRUE(Eventually([&] { return Idle() == 3; })) << Idle();
  EXPECT_EQ(engine_.created().size(), 6u);
  for (auto& c : taken) pool.Retire(std::move(c));
}

TEST_F(WarmPoolTest, DeadIdleContainerIsReplacedAndNeverHandedOut) {
  PoolOptions o;
  o.size = 1;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  ASSERT_TRUE(Eventually([&] { return Idle() == 1; }));
  std::string first = engine_.created().front();
  engine_.Die(first);
  // The maintenance pass (or a Take) notices the ended stream.
  ASSERT_TRUE(Eventually([&] { return pool.GetStats().replaced_dead == 1 && Idle() == 1; }));
  auto c = pool.Take(JobOf(Python()));
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->id, first);
  EXPECT_TRUE(Eventually([&] { return engine_.Get(first).removed; }));
  EXPECT_EQ(metrics_.Value("coderunner_pool_replaced_total", {{"reason", "died"}}), 1);
  pool.Retire(std::move(c));
}

TEST_F(WarmPoolTest, IdleTooLongIsReplaced) {
  PoolOptions o;
  o.size = 1;
  o.max_idle_s = 1;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  ASSERT_TRUE(Eventually([&] { return Idle() == 1; }));
  std::string first = engine_.created().front();
  ASSERT_TRUE(Eventually([&] { return engine_.Get(first).removed; }));
  EXPECT_GE(pool.GetStats().replaced_idle, 1u);
  EXPECT_TRUE(Eventually([&] { return Idle() == 1; }));
}

TEST_F(WarmPoolTest, ContainerFailingPolicyVerificationIsRemovedNotPooled) {
  engine_.set_weaken_inspect(true);
  PoolOptions o;
  o.size = 1;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  ASSERT_TRUE(Eventually([&] { return pool.GetStats().rejected_policy >= 1; }));
  EXPECT_EQ(Idle(), 0);
  EXPECT_EQ(pool.Take(JobOf(Python())), nullptr);
  ASSERT_TRUE(Eventually([&] { return engine_.Live() == 0; }));
}

TEST_F(WarmPoolTest, UnknownShapeIsAMissThenLearned) {
  PoolOptions o;
  o.size = 1;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  JobSpec big = JobOf(Python());
  big.limits.memory_bytes = 512LL << 20;
  EXPECT_EQ(pool.Take(big), nullptr);
  ASSERT_TRUE(Eventually([&] { return pool.GetStats().shapes == 2 && Idle() == 2; }));
  auto c = pool.Take(big);
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(engine_.Get(c->id).create["HostConfig"]["Memory"], 512LL << 20);
  pool.Retire(std::move(c));
}

TEST_F(WarmPoolTest, MissesRaiseTheTargetUpToTheMaximum) {
  engine_.set_fail_creates(true);  // Nothing fills: every Take misses.
  PoolOptions o;
  o.size = 1;
  o.max_per_shape = 3;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  for (int i = 0; i < 5; ++i) EXPECT_EQ(pool.Take(JobOf(Python())), nullptr);
  EXPECT_EQ(pool.GetStats().target, 3);
  EXPECT_EQ(pool.GetStats().misses, 5u);
}

TEST_F(WarmPoolTest, IneligibleJobsBypassThePool) {
  MakePool().Start({JobOf(Python())});
  struct Case {
    const char* name;
    std::function<void(JobSpec&)> change;
    bool eligible;
  };
  const std::vector<Case> cases = {
      {"plain", [](JobSpec&) {}, true},
      {"args and stdin", [](JobSpec& j) { j.args = {"a"}, j.stdin_data = "x"; }, true},
      {"volume", [](JobSpec& j) { j.volume.id = "vol-1"; }, false},
      {"gvisor", [](JobSpec& j) { j.runtime = "runsc"; }, false},
      {"explicit runc", [](JobSpec& j) { j.runtime = "runc"; }, true},
      {"huge args", [](JobSpec& j) { j.args.assign(100, std::string(1000, 'a')); }, false},
  };
  for (const Case& c : cases) {
    JobSpec j = JobOf(Python());
    c.change(j);
    EXPECT_EQ(pool_->Eligible(j), c.eligible) << c.name;
  }
}

TEST_F(WarmPoolTest, ShapeKeyDiffersWhenAnyPolicyInputDiffers) {
  WarmPool& pool = MakePool();
  const std::string base = pool.KeyOf(JobOf(Python()));
  struct Case {
    const char* name;
    std::function<void(JobSpec&)> change;
    bool same;
  };
  const std::vector<Case> cases = {
      {"other id, code, args, stdin, files",
       [](JobSpec& j) {
         j.id = "job-2";
         j.code = "x";
         j.args = {"1"};
         j.stdin_data = "in";
         j.files = {{"a.txt", "a"}};
       },
       true},
      {"memory", [](JobSpec& j) { j.limits.memory_bytes *= 2; }, false},
      {"cpus", [](JobSpec& j) { j.limits.cpus = 0.5; }, false},
      {"pids", [](JobSpec& j) { j.limits.pids = 7; }, false},
      {"tmp", [](JobSpec& j) { j.limits.tmp_bytes = 1 << 20; }, false},
      {"cpu time", [](JobSpec& j) { j.limits.cpu_ms = 123; }, false},
      {"image", [](JobSpec& j) { j.language.image = "other:1"; }, false},
      {"command",
       [](JobSpec& j) {
         j.language.command = {"python3", "-I", "{file}"};
       },
       false},
      {"runtime", [](JobSpec& j) { j.runtime = "runc"; }, false},
  };
  for (const Case& c : cases) {
    JobSpec j = JobOf(Python());
    c.change(j);
    EXPECT_EQ(pool.KeyOf(j) == base, c.same) << c.name;
  }
}

// Policy equality: a pooled container's create body is the cold job's,
// except for paths, labels and how arguments and stdin arrive.
TEST_F(WarmPoolTest, PooledCreateBodyCarriesTheColdJobsPolicy) {
  JobSpec job = JobOf(Python());
  job.args = {"x"};
  OutputMount out{"/out", false, 1, 2, 3, "/out"};
  ContainerContext cold{job, "/ws", true, out};
  ContainerContext warm{job, "/ws", false, out};
  warm.pooled = true;
  warm.pool_label = "pool-1";
  json a = policy_.BuildCreateBody(cold);
  json b = policy_.BuildCreateBody(warm);
  EXPECT_EQ(a["HostConfig"], b["HostConfig"]);
  for (const char* field :
       {"Image", "User", "Entrypoint", "Env", "WorkingDir", "NetworkDisabled"}) {
    EXPECT_EQ(a.value(field, json()), b.value(field, json())) << field;
  }
  json labels = b["Labels"];
  EXPECT_EQ(labels[kLabelPool], "pool-1");
  labels.erase(kLabelPool);
  EXPECT_EQ(a["Labels"], labels);
  // Cmd: the same options and command; -i and the args are replaced by -W,
  // and -t names /tmp (emptied between the cases of a series).
  std::vector<std::string> ca = a["Cmd"], cb = b["Cmd"];
  auto dash = std::find(ca.begin(), ca.end(), "--");
  ASSERT_NE(dash, ca.end());
  std::vector<std::string> want(ca.begin(), ca.end() - 1);  // Without the "x" argument.
  auto in = std::find(want.begin(), want.end(), "-i");
  ASSERT_NE(in, want.end());
  *in = "-W";
  *(in + 1) = "/workspace/.coderunner-go";
  want.insert(in + 2, {"-t", "/tmp"});
  EXPECT_EQ(cb, want);
}

TEST_F(WarmPoolTest, StopRemovesEveryIdleContainer) {
  PoolOptions o;
  o.size = 3;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python()), JobOf(Bash())});
  ASSERT_TRUE(Eventually([&] { return Idle() == 6; }));
  pool.Stop();
  EXPECT_EQ(engine_.Live(), 0);
  EXPECT_FALSE(pool.Eligible(JobOf(Python())));
  // Slot directories went with their containers.
  EXPECT_TRUE(std::filesystem::is_empty(dir_ + "/ws"));
  EXPECT_TRUE(std::filesystem::is_empty(dir_ + "/art"));
}

TEST_F(WarmPoolTest, ContainerWhoseCreateAnswerWasLostIsRemovedByName) {
  engine_.set_lose_create_answers(true);
  PoolOptions o;
  o.size = 1;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  ASSERT_TRUE(Eventually([&] { return engine_.created().size() >= 2; }));
  pool.Stop();
  // The pool never learnt these ids, yet none is left in the engine.
  EXPECT_EQ(engine_.Live(), 0);
  for (const auto& id : engine_.created()) EXPECT_TRUE(engine_.Get(id).removed) << id;
}

TEST_F(WarmPoolTest, OwnsOnlyContainersWithItsToken) {
  WarmPool& pool = MakePool();
  EXPECT_TRUE(pool.Owns({{kLabelPool, pool.token()}}));
  EXPECT_FALSE(pool.Owns({{kLabelPool, "pool-other"}}));
  EXPECT_FALSE(pool.Owns({{kLabelJob, "job-1"}}));
}

TEST_F(WarmPoolTest, DisabledPoolNeverStartsOrTakes) {
  PoolOptions o;
  o.enabled = false;
  WarmPool& pool = MakePool(o);
  pool.Start({JobOf(Python())});
  EXPECT_FALSE(pool.Eligible(JobOf(Python())));
  EXPECT_TRUE(engine_.created().empty());
}

}  // namespace
}  // namespace coderunner::isolation
