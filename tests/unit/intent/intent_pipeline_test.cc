// IntentPipeline over a scripted model, a real JobExecutor and
// ContainerRunner on the fake engine transport, and a SQLite job store: an
// accepted intent runs its stages to a terminal status, with its progress
// (stages, attempts, answer, error) committed to the record and its stage
// changes published on the job's channel.
#include "coderunner/intent/intent_pipeline.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/intent/agent_catalog.h"
#include "coderunner/intent/intent_request.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_executor.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "jobs/job_metrics.h"
#include "unit/intent/scripted_llm.h"
#include "unit/isolation/scripted_engine.h"

namespace coderunner::intent {
namespace {

using nlohmann::json;
using testutil::MuxFrame;

constexpr const char* kJob = "intent-1";
constexpr const char* kTenant = "acme";
constexpr const char* kStart = "/containers/c1/start";
constexpr const char* kRemove = "/containers/c1?force=1&v=1";
constexpr int64_t kOutputCap = 1 << 20;

// A model reply holding a Python program.
std::string CodeReply(const std::string& program) {
  return "Here it is:\n```python\n" + program + "\n```\n";
}

// A reply that holds no program (an empty fenced block).
constexpr const char* kEmptyBlock = "```python\n```\n";

// One run of a program in the fake engine.
struct EngineRun {
  std::string out;
  std::string err;
  int exit_code;
};

// A model call that fails.
struct LlmFailure {
  StatusCode code;
  const char* reason;
};

// One step of the model's script: a reply's content, or a failure.
struct Step {
  std::string content;
  LlmFailure failure = {StatusCode::kOk, ""};
};

Step Says(std::string content) { return Step{std::move(content)}; }
Step Fails(StatusCode code, const char* reason) { return Step{"", {code, reason}}; }

isolation::PolicySettings Settings() {
  isolation::PolicySettings s;
  s.init_host_path = "/opt/coderunner-init";
  return s;
}

class IntentPipelineTest : public ::testing::Test {
 protected:
  void SetUp() override { Reset(); }
  void TearDown() override { Clear(); }

  // A fresh service: new database, agent store, engine, runner, hub, model.
  void Reset() {
    Clear();
    char tmpl[] = "/tmp/coderunner-intent-XXXXXX";
    root_ = mkdtemp(tmpl);
    config_ = config::DefaultConfig();
    // Discovery always reuses the built-in python profile: no model call.
    config_.intents.agent_match_threshold = 0.0;
    auto store = store::SqliteJobStore::Open(root_ + "/jobs.db");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    auto agents = AgentCatalog::Open("", root_ + "/agents");
    ASSERT_TRUE(agents.ok()) << agents.status().ToString();
    agents_ = std::move(*agents);
    llm_ = std::make_unique<testutil::ScriptedLlm>();
    engine_ = std::make_unique<testutil::ScriptedEngine>();
    containers_ = std::make_unique<engine::ContainerClient>(*engine_, std::chrono::seconds(5));
    isolation::RunnerOptions options;
    options.workspace_root = root_ + "/ws";
    options.uids = &uids_;
    runner_ = std::make_unique<isolation::ContainerRunner>(*containers_, policy_, options);
    hub_ = std::make_unique<jobs::JobHub>();
    metrics_ = std::make_unique<MetricsRegistry>();
    jobs::DeclareJobMetrics(*metrics_);
  }
  void Clear() {
    runner_.reset();
    containers_.reset();
    engine_.reset();
    agents_.reset();
    store_.reset();
    if (!root_.empty()) std::filesystem::remove_all(root_);
    root_.clear();
  }

  // Scripts the model's replies, in order.
  void ScriptModel(const std::vector<Step>& steps) {
    for (const Step& s : steps) {
      if (s.failure.code == StatusCode::kOk) {
        llm_->Reply(s.content);
      } else {
        llm_->Fail(Status(s.failure.code, "scripted model failure", s.failure.reason));
      }
    }
  }

  // Scripts the engine so that the k-th run (0-based) goes as runs[k],
  // told by coderunner-init's trailer.
  void ScriptRuns(std::vector<EngineRun> runs) {
    engine_->AnswerCreatesAs("c1", /*running=*/false);
    engine_->Answer("POST", kStart, 204, "");
    engine_->Answer("DELETE", kRemove, 204, "");
    auto next = std::make_shared<size_t>(0);
    engine_->SetAttachBody([runs, next](const json& create) {
      const EngineRun& r = runs[std::min(*next, runs.size() - 1)];
      ++*next;
      std::string body;
      if (!r.out.empty()) body += MuxFrame(1, r.out);
      if (!r.err.empty()) body += MuxFrame(2, r.err);
      return body + MuxFrame(2, testutil::InitTrailerLine({{"exit_code", r.exit_code},
                                                           {"eof", testutil::EofNonceOf(create)}}));
    });
  }

  // Stores intent kJob as POST /v1/intents accepts it from a tenant of
  // `tier` ("" for none), and runs it on a worker's executor with the
  // pipeline as the intent runner. Returns its channel.
  std::shared_ptr<jobs::JobChannel> RunIntent(const std::string& tier = "") {
    auto parsed = ParseIntentRequest(R"json({"intent":"print the answer","language":"python"})json",
                                     config_, tier.empty() ? nullptr : config_.FindTier(tier));
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    store::JobRecord r;
    r.id = kJob;
    r.tenant = kTenant;
    r.kind = "intent";
    r.status = store::JobStatus::kQueued;
    r.language = "python";
    r.request_json = jobs::EncodeStoredRequest(IntentRequestToJson(*parsed), "", false, tier);
    r.limits_json = "{}";
    r.created_at_ms = jobs::NowMs();
    r.transitions = {{store::JobStatus::kQueued, r.created_at_ms}};
    auto channel = hub_->Open(kJob, kOutputCap);
    EXPECT_TRUE(store_->Insert({r}).ok());

    IntentPipeline pipeline(config_, *store_, /*volumes=*/nullptr, *llm_, *agents_);
    jobs::JobExecutor executor(jobs::JobExecutorDeps{&config_, store_.get(), hub_.get(),
                                                     runner_.get(), metrics_.get(), nullptr,
                                                     nullptr, &pipeline});
    executor.Execute(kJob);
    return channel;
  }

  store::JobRecord Stored() {
    auto rec = store_->Get(kJob, kTenant);
    EXPECT_TRUE(rec.ok()) << rec.status().ToString();
    return rec.ok() ? *rec : store::JobRecord{};
  }

  std::string root_;
  config::Config config_;
  std::unique_ptr<testutil::ScriptedLlm> llm_;
  std::unique_ptr<AgentCatalog> agents_;
  std::unique_ptr<testutil::ScriptedEngine> engine_;
  std::unique_ptr<engine::ContainerClient> containers_;
  isolation::ContainerPolicy policy_{Settings(), "inst-1"};
  isolation::UidPool uids_{isolation::kDefaultFirstJobUid, 8};
  std::unique_ptr<isolation::ContainerRunner> runner_;
  std::unique_ptr<store::SqliteJobStore> store_;
  std::unique_ptr<jobs::JobHub> hub_;
  std::unique_ptr<MetricsRegistry> metrics_;
};

// Each stage's status in a progress JSON, in stage order.
std::vector<std::string> StageStatuses(const json& progress) {
  std::vector<std::string> out;
  for (const json& s : progress["stages"]) out.push_back(s["status"].get<std::string>());
  return out;
}

// Each stage's last status published on `channel`, by stage name.
std::map<std::string, std::string> PublishedStages(jobs::JobChannel& channel) {
  jobs::EventCursor cursor;
  std::vector<jobs::JobEvent> events;
  channel.WaitEvents(&cursor, std::chrono::steady_clock::now(), 1 << 20, &events);
  std::map<std::string, std::string> last;
  for (const jobs::JobEvent& e : events) {
    if (e.kind != jobs::JobEvent::Kind::kStage) continue;
    json stage = json::parse(e.data);
    last[stage["name"].get<std::string>()] = stage["status"].get<std::string>();
  }
  return last;
}

TEST_F(IntentPipelineTest, IntentRunsItsStagesToATerminalStatus) {
  const EngineRun kAnswer{"42\n", "", 0};
  const EngineRun kNameError{
      "", "Traceback (most recent call last):\nNameError: name 'x' is not defined\n", 1};
  struct Case {
    const char* name;
    int max_attempts;
    std::vector<Step> model;
    std::vector<EngineRun> runs;
    store::JobStatus status;
    std::vector<std::string> stages;  // discover, generate, execute, format.
    int attempts;                     // In the progress.
    int engine_runs;                  // Containers started.
    int model_calls;
    std::string answer;      // Progress "answer" when succeeded.
    std::string error_code;  // Progress error.code when not succeeded.
    std::string error_stage;
  };
  const std::vector<Case> cases = {
      {"answer on the first attempt",
       3,
       {Says(CodeReply("print(42)")), Says("The answer is 42.")},
       {kAnswer},
       store::JobStatus::kSucceeded,
       {"succeeded", "succeeded", "succeeded", "succeeded"},
       1,
       1,
       2,
       "The answer is 42.",
       "",
       ""},
      {"failed run repaired on the second attempt",
       3,
       {Says(CodeReply("print(x)")), Says(CodeReply("print(42)")), Says("42")},
       {kNameError, kAnswer},
       store::JobStatus::kSucceeded,
       {"succeeded", "succeeded", "succeeded", "succeeded"},
       2,
       2,
       3,
       "42",
       "",
       ""},
      {"every attempt fails",
       2,
       {Says(CodeReply("print(x)")), Says(CodeReply("print(y)"))},
       {kNameError},
       store::JobStatus::kFailed,
       {"succeeded", "succeeded", "failed", "skipped"},
       2,
       2,
       2,
       "",
       "attempts_exhausted",
       "execute"},
      {"the model never returns code",
       2,
       {Says(kEmptyBlock), Says("  \n")},
       {kAnswer},
       store::JobStatus::kFailed,
       {"succeeded", "failed", "skipped", "skipped"},
       2,
       0,
       2,
       "",
       "attempts_exhausted",
       "generate_code"},
      {"no code, then code",
       3,
       {Says(kEmptyBlock), Says(CodeReply("print(42)")), Says("42")},
       {kAnswer},
       store::JobStatus::kSucceeded,
       {"succeeded", "succeeded", "succeeded", "succeeded"},
       2,
       1,
       3,
       "42",
       "",
       ""},
      {"the model is unreachable",
       3,
       {Fails(StatusCode::kUnavailable, "llm_unreachable")},
       {kAnswer},
       store::JobStatus::kError,
       {"succeeded", "failed", "skipped", "skipped"},
       0,
       0,
       1,
       "",
       "generate_code_unreachable",
       "generate_code"},
      {"the model times out after a failed run",
       3,
       {Says(CodeReply("print(x)")), Fails(StatusCode::kDeadlineExceeded, "llm_timeout")},
       {kNameError},
       store::JobStatus::kError,
       {"succeeded", "failed", "skipped", "skipped"},
       1,
       1,
       2,
       "",
       "generate_code_timeout",
       "generate_code"},
      {"the formatter fails: the answer is the raw stdout",
       3,
       {Says(CodeReply("print(42)")), Fails(StatusCode::kUnavailable, "llm_http_error")},
       {kAnswer},
       store::JobStatus::kSucceeded,
       {"succeeded", "succeeded", "succeeded", "failed"},
       1,
       1,
       2,
       "42",
       "",
       ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    Reset();
    config_.intents.max_attempts = c.max_attempts;
    ScriptModel(c.model);
    ScriptRuns(c.runs);
    auto channel = RunIntent();

    store::JobRecord rec = Stored();
    EXPECT_EQ(rec.status, c.status);
    json progress = json::parse(rec.progress_json);
    EXPECT_EQ(StageStatuses(progress), c.stages);
    EXPECT_EQ(progress["attempts"].size(), static_cast<size_t>(c.attempts));
    EXPECT_EQ(engine_->Count("POST", kStart), c.engine_runs);
    EXPECT_EQ(static_cast<int>(llm_->requests().size()), c.model_calls);
    EXPECT_EQ(progress["usage"]["llm_calls"].get<int>(),
              c.model_calls - (c.model.back().failure.code == StatusCode::kOk ? 0 : 1));
    if (c.status == store::JobStatus::kSucceeded) {
      EXPECT_EQ(progress["answer"], c.answer);
      EXPECT_TRUE(progress["error"].is_null());
      json result = json::parse(rec.result_json);
      EXPECT_EQ(result["stdout"], "42\n");
      EXPECT_EQ(result["exit_code"], 0);
    } else {
      EXPECT_EQ(progress["error"]["code"], c.error_code);
      EXPECT_EQ(progress["error"]["stage"], c.error_stage);
    }
    // Every stage change went out on /events too, ending where the record does.
    ASSERT_TRUE(channel->terminal());
    std::map<std::string, std::string> published = PublishedStages(*channel);
    const char* names[] = {"discover_agent", "generate_code", "execute", "format_result"};
    for (int i = 0; i < 4; ++i) EXPECT_EQ(published[names[i]], c.stages[i]) << names[i];
    EXPECT_EQ(hub_->Find(kJob), nullptr);
  }
}

TEST_F(IntentPipelineTest, RetryTellsTheModelWhatWentWrong) {
  ScriptModel({Says(CodeReply("print(x)")), Says(CodeReply("print(42)")), Says("42")});
  ScriptRuns({{"", "Traceback (most recent call last):\nNameError: name 'x' is not defined\n", 1},
              {"42\n", "", 0}});
  RunIntent();

  std::vector<ChatRequest> requests = llm_->requests();
  ASSERT_EQ(requests.size(), 3u);
  // The second code request is the first one, plus the model's failed
  // program and a fix request naming the error.
  const std::vector<ChatMessage>& first = requests[0].messages;
  const std::vector<ChatMessage>& second = requests[1].messages;
  ASSERT_EQ(second.size(), first.size() + 2);
  EXPECT_EQ(second[first.size()].role, "assistant");
  EXPECT_EQ(second[first.size()].content, CodeReply("print(x)"));
  EXPECT_EQ(second.back().role, "user");
  EXPECT_NE(second.back().content.find("NameError"), std::string::npos);
  // The formatter sees the successful run's stdout.
  EXPECT_NE(requests[2].messages.back().content.find("42"), std::string::npos);
  json progress = json::parse(Stored().progress_json);
  EXPECT_EQ(progress["attempts"][0]["error"]["type"], "NameError");
  EXPECT_TRUE(progress["attempts"][1]["error"].is_null());
}

TEST_F(IntentPipelineTest, TokenBudgetEndsTheIntentAsFailed) {
  config_.intents.token_budget = 10;  // The first reply uses it all.
  ScriptModel({Says(CodeReply("print(x)"))});
  ScriptRuns({{"", "NameError: name 'x' is not defined\n", 1}});
  RunIntent();

  store::JobRecord rec = Stored();
  EXPECT_EQ(rec.status, store::JobStatus::kFailed);
  json progress = json::parse(rec.progress_json);
  EXPECT_EQ(progress["error"]["code"], "token_budget_exhausted");
  EXPECT_EQ(progress["error"]["stage"], "generate_code");
  EXPECT_EQ(llm_->requests().size(), 1u);  // The second call is never made.
}

TEST_F(IntentPipelineTest, RunsDefaultToTheTiersBudget) {
  struct Case {
    const char* tier;  // "" for none.
    int64_t budget_ms;
  };
  for (const Case& c : {Case{"free", 30000}, Case{"pro", 120000}, Case{"business", 600000},
                        Case{"enterprise", 600000}, Case{"", 60000}}) {
    SCOPED_TRACE(c.tier);
    Reset();
    ScriptModel({Says(CodeReply("print(42)")), Says("42")});
    ScriptRuns({{"42\n", "", 0}});
    RunIntent(c.tier);

    store::JobRecord rec = Stored();
    EXPECT_EQ(rec.status, store::JobStatus::kSucceeded);
    json limits = json::parse(rec.result_json)["limits"];
    EXPECT_EQ(limits["timeout_ms"], c.budget_ms);
    EXPECT_EQ(limits["cpu_ms"], c.budget_ms);
  }
}

TEST_F(IntentPipelineTest, ARunStoppedAtTheBudgetEndsTheIntentAsTimeout) {
  // The tier's budget is 300 ms; the only run never ends by itself and is
  // stopped at it, which leaves nothing to run another attempt in.
  config::TierConfig* free = nullptr;
  for (auto& t : config_.tiers) free = t.name == "free" ? &t : free;
  ASSERT_NE(free, nullptr);
  free->max_timeout_ms = 300;
  ScriptModel({Says(CodeReply("import time\ntime.sleep(60)"))});
  engine_->AnswerCreatesAs("c1", /*running=*/false);
  engine_->Answer("POST", kStart, 204, "");
  engine_->Answer("DELETE", kRemove, 204, "");
  engine_->SetAttachBody([](const json&) { return std::string(); });
  engine_->HoldAttach();
  engine_->Answer("POST", "/containers/c1/kill?signal=USR1", 204, "");
  engine_->Answer("POST", "/containers/c1/kill?signal=KILL", 204, "");
  RunIntent("free");

  store::JobRecord rec = Stored();
  EXPECT_EQ(rec.status, store::JobStatus::kTimeout);
  json progress = json::parse(rec.progress_json);
  EXPECT_EQ(progress["error"]["code"], "exec_budget_exhausted");
  EXPECT_EQ(progress["error"]["stage"], "execute");
  EXPECT_NE(progress["error"]["message"].get<std::string>().find("tier free"), std::string::npos)
      << progress["error"];
  ASSERT_EQ(progress["attempts"].size(), 1u);
  EXPECT_EQ(progress["attempts"][0]["result"]["status"], "timeout");
  EXPECT_EQ(progress["attempts"][0]["result"]["limits"]["timeout_ms"], 300);
  EXPECT_EQ(progress["attempts"][0]["result"]["limits"]["cpu_ms"], 300);
  EXPECT_EQ(llm_->requests().size(), 1u) << "no model call for a program with no time to run";
  EXPECT_EQ(StageStatuses(progress),
            (std::vector<std::string>{"succeeded", "succeeded", "failed", "skipped"}));
}

}  // namespace
}  // namespace coderunner::intent
