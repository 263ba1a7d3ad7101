// A fleet: two or three coderunner nodes on one real PostgreSQL 15 and the
// engine under test, each node its own `instance`. Nothing accepted is lost
// and nothing runs twice: 1,000 jobs submitted across three nodes run once
// each; a client waiting on one node is woken when another finishes the
// job; a node killed with -9 has its jobs finished by another node, where
// a client waits; a client following /events on one node gets the live
// output of the job another node runs; a node drained and restarted
// rejoins; PostgreSQL restarting under load loses no accepted job. A tier's
// requests_per_minute is one budget for the whole fleet; each webhook of
// jobs finished on either node reaches its receiver once. Every assertion
// reads the database itself (status, attempt, owner, transitions, outbox).
#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/sha256.h"
#include "pg/temp_postgres.h"
#include "pg_support.h"
#include "server_process.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Short leases so that a dead node's jobs come back within seconds.
constexpr const char* kLease = ", lease_ms: 2000";

json Bash(const std::string& code) {
  return json{{"language", "bash"}, {"code", code}, {"cache", false}};
}

// How many times each status appears in a stored transitions array.
std::map<std::string, int> TransitionCounts(const std::string& transitions_json) {
  std::map<std::string, int> out;
  for (const json& t : json::parse(transitions_json)) ++out[t.value("status", "")];
  return out;
}

class PgFleetTest : public PgClusterTest {
 protected:
  // A node of the fleet; EXPECTs that it started.
  std::unique_ptr<ServerProcess> Node(const std::string& extra = "") {
    auto node = std::make_unique<ServerProcess>(StoreYaml(conninfo_, kLease) + extra);
    EXPECT_TRUE(node->started()) << node->log();
    return node;
  }
  // `n` nodes (Node), started at the same time.
  std::vector<std::unique_ptr<ServerProcess>> Nodes(int n, const std::string& extra = "") {
    std::vector<std::future<std::unique_ptr<ServerProcess>>> starting;
    for (int i = 0; i < n; ++i) {
      starting.push_back(std::async(std::launch::async, [this, &extra] { return Node(extra); }));
    }
    std::vector<std::unique_ptr<ServerProcess>> nodes;
    for (auto& s : starting) nodes.push_back(s.get());
    return nodes;
  }

  // Every job row: its transitions counted, for the exactly-once checks.
  struct Row {
    std::string status;
    int attempt = 0;
    std::string owner;
    std::map<std::string, int> transitions;
    json result;
  };
  std::map<std::string, Row> JobRows() {
    std::map<std::string, Row> out;
    for (const auto& r : Query(
             conninfo_, "SELECT id, status, attempt, owner, transitions, result_json FROM jobs")) {
      Row row{r[1], std::stoi(r[2]), r[3], TransitionCounts(r[4]), json()};
      if (!r[5].empty()) row.result = json::parse(r[5], nullptr, false);
      out[r[0]] = row;
    }
    return out;
  }

  int Terminal() {
    Rows rows =
        Query(conninfo_, "SELECT count(*) FROM jobs WHERE status NOT IN ('queued', 'running')");
    return rows.empty() ? -1 : std::stoi(rows[0][0]);
  }
};

TEST_F(PgFleetTest, AThousandJobsAcrossThreeNodesRunExactlyOnce) {
  constexpr int kJobs = 1000;
  constexpr int kBatch = 50;
  std::vector<std::unique_ptr<ServerProcess>> nodes = Nodes(3);
  for (const auto& n : nodes) ASSERT_TRUE(n->started());
  // Each node is registered, and any node lists them all (auth none: every
  // caller is an admin).
  std::set<std::string> instances;
  for (const auto& n : nodes) instances.insert(n->instance());
  std::set<std::string> listed;
  EXPECT_TRUE(Eventually([&] {
    HttpAnswer a = nodes[1]->Get("/v1/nodes");
    listed.clear();
    if (a.status != 200) return false;
    for (const json& n : a.json["nodes"]) {
      if (n.value("alive", false)) listed.insert(n.value("id", ""));
    }
    return listed == instances;
  })) << nodes[1]->Get("/v1/nodes").body;
  std::map<std::string, int> want;  // Job id -> the number it echoes.
  std::map<std::string, size_t> submitted_on;
  for (int b = 0; b < kJobs / kBatch; ++b) {
    json jobs = json::array();
    for (int i = 0; i < kBatch; ++i) jobs.push_back(Bash("echo " + std::to_string(b * kBatch + i)));
    const ServerProcess& node = *nodes[b % nodes.size()];
    HttpAnswer a = node.Post("/v1/jobs/batch", json{{"jobs", jobs}}.dump());
    ASSERT_EQ(a.status, 202) << a.body;
    for (int i = 0; i < kBatch; ++i) {
      std::string id = a.json["jobs"][i].value("id", "");
      ASSERT_FALSE(id.empty()) << a.json["jobs"][i].dump();
      want[id] = b * kBatch + i;
      submitted_on[id] = b % nodes.size();
    }
  }
  // A client may wait on any node: a sample, each on a node it was not
  // submitted on.
  int sampled = 0;
  for (const auto& [id, n] : want) {
    if (sampled++ % 100 != 0) continue;
    json rec = WaitTerminal(*nodes[(submitted_on[id] + 1) % nodes.size()], id, seconds(600));
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
    EXPECT_EQ(rec["result"]["stdout"], std::to_string(n) + "\n") << rec.dump();
  }
  ASSERT_TRUE(Eventually([&] { return Terminal() == kJobs; }, seconds(900)));

  std::map<std::string, int> per_node;
  for (const auto& [id, row] : JobRows()) {
    SCOPED_TRACE(id);
    ASSERT_TRUE(want.count(id));
    EXPECT_EQ(row.status, "succeeded");
    EXPECT_EQ(row.attempt, 1);
    EXPECT_EQ(row.transitions.at("running"), 1);
    EXPECT_EQ(row.transitions.at("succeeded"), 1);
    EXPECT_EQ(row.result.value("stdout", ""), std::to_string(want[id]) + "\n");
    ++per_node[row.owner];
  }
  EXPECT_EQ(CountByStatus(conninfo_), (std::map<std::string, int>{{"succeeded", kJobs}}));
  // Every node took part.
  for (const auto& n : nodes) EXPECT_GT(per_node[n->instance()], 0) << n->instance();
  for (const auto& [node, count] : per_node) {
    std::cout << "[  FIGURE  ] fleet_jobs_on_" << node << " = " << count << std::endl;
  }
  for (auto& n : nodes) EXPECT_TRUE(n->Stop()) << n->log();
}

TEST_F(PgFleetTest, AKilledNodesJobsFinishOnASurvivorWhereAClientWaits) {
  constexpr int kJobs = 6;
  auto nodes = Nodes(2);
  auto& a = nodes[0];
  auto& b = nodes[1];
  ASSERT_TRUE(a->started() && b->started());
  std::vector<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    ids.push_back(Submit(*a, "import time\ntime.sleep(1)\nprint('job " + std::to_string(i) + "')"));
    ASSERT_FALSE(ids.back().empty());
  }
  // Jobs node A runs, as the database has it.
  const std::string on_a =
      "SELECT id FROM jobs WHERE status = 'running' AND owner = '" + a->instance() + "'";
  ASSERT_TRUE(Eventually([&] { return !Query(conninfo_, on_a).empty(); })) << a->log();
  a->Kill9();
  std::set<std::string> killed;
  for (const auto& row : Query(conninfo_, on_a)) killed.insert(row[0]);
  ASSERT_FALSE(killed.empty());
  // A client waits on B for every job, those A ran among them.
  std::vector<std::future<json>> waits;
  for (const std::string& id : ids) {
    waits.push_back(std::async(std::launch::async, [&b, id] { return WaitTerminal(*b, id); }));
  }
  for (int i = 0; i < kJobs; ++i) {
    SCOPED_TRACE(ids[i]);
    json rec = waits[i].get();
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
    EXPECT_EQ(rec["result"]["stdout"], "job " + std::to_string(i) + "\n") << rec.dump();
    EXPECT_EQ(rec["attempt"], killed.count(ids[i]) ? 2 : 1) << rec.dump();
  }
  for (const auto& [id, row] : JobRows()) {
    SCOPED_TRACE(id);
    EXPECT_EQ(row.status, "succeeded");
    EXPECT_EQ(row.transitions.at("succeeded"), 1);
    EXPECT_EQ(row.owner, b->instance());  // B finished them all.
  }
  std::cout << "[  FIGURE  ] fleet_jobs_moved_after_kill9 = " << killed.size() << std::endl;

  // A restarted with its instance removes what the kill left on its engine,
  // and takes work again.
  auto again = std::make_unique<ServerProcess>(*a);
  ASSERT_TRUE(again->started()) << again->log();
  EXPECT_TRUE(Eventually([&] {
    return CountContainers(again->socket(), again->instance(), again->PoolToken()) == 0;
  })) << "containers of instance "
      << again->instance() << " remain";
  std::string id = Submit(*again, "print('back')");
  EXPECT_EQ(WaitTerminal(*b, id)["status"], "succeeded");
  EXPECT_TRUE(again->Stop()) << again->log();
  EXPECT_TRUE(b->Stop()) << b->log();
}

TEST_F(PgFleetTest, AWaiterOnOneNodeIsWokenWhenAnotherNodeFinishesTheJob) {
  auto nodes = Nodes(2);
  auto& a = nodes[0];
  auto& b = nodes[1];
  ASSERT_TRUE(a->started() && b->started());
  std::map<std::string, const ServerProcess*> by_instance{{a->instance(), a.get()},
                                                          {b->instance(), b.get()}};
  for (int i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    std::string id = Submit(i % 2 ? *a : *b, "import time\ntime.sleep(1)\nprint('woken')");
    ASSERT_FALSE(id.empty());
    std::string owner;
    ASSERT_TRUE(Eventually([&] {
      Rows rows = Query(conninfo_, "SELECT owner FROM jobs WHERE id = '" + id + "'");
      owner = rows.empty() ? "" : rows[0][0];
      return !owner.empty();
    }));
    ASSERT_TRUE(by_instance.count(owner)) << owner;
    const ServerProcess& other = by_instance[owner] == a.get() ? *b : *a;
    // One /wait on the node that does not run the job, bounded at 100 s:
    // it must end because the node that finished the job woke it
    // (PostgreSQL NOTIFY), not at its own deadline (where it would re-read
    // the finished record and answer 200 all the same). The job takes 1 s;
    // only a wait that was never woken reaches 90 s.
    const int64_t asked_ms = std::chrono::duration_cast<milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
    auto asked = Clock::now();
    HttpAnswer w = other.Get("/v1/jobs/" + id + "/wait?timeout_s=100");
    auto waited = std::chrono::duration_cast<seconds>(Clock::now() - asked);
    EXPECT_LT(waited.count(), 90) << "the wait was not woken, it timed out";
    EXPECT_EQ(w.status, 200) << w.body;
    EXPECT_EQ(w.json["status"], "succeeded") << w.body;
    EXPECT_EQ(w.json["result"]["stdout"], "woken\n") << w.body;
    // And the job ended after the wait was asked: there was a wait to wake,
    // not a finished record to read.
    int64_t finished_ms = 0;
    for (const auto& row :
         Query(conninfo_, "SELECT transitions FROM jobs WHERE id = '" + id + "'")) {
      for (const json& t : json::parse(row[0])) {
        if (t.value("status", "") == "succeeded") finished_ms = t.value("at_ms", int64_t{0});
      }
    }
    EXPECT_GT(finished_ms, asked_ms) << "the job had finished before the wait began";
  }
  EXPECT_TRUE(a->Stop()) << a->log();
  EXPECT_TRUE(b->Stop()) << b->log();
}

TEST_F(PgFleetTest, LiveOutputReachesASubscriberOnTheOtherNode) {
  auto nodes = Nodes(2);
  auto& a = nodes[0];
  auto& b = nodes[1];
  ASSERT_TRUE(a->started() && b->started());
  HttpAnswer sub = a->Post(
      "/v1/jobs", Bash("sleep 1; for i in 1 2 3 4 5; do echo line$i; sleep 0.3; done").dump());
  ASSERT_EQ(sub.status, 202) << sub.body;
  const std::string id = sub.json.value("id", "");
  std::string owner;
  ASSERT_TRUE(Eventually([&] {
    Rows rows = Query(conninfo_, "SELECT owner FROM jobs WHERE id = '" + id + "'");
    owner = rows.empty() ? "" : rows[0][0];
    return !owner.empty();
  }));
  // Followed on the node that does not run it: its stdout comes through
  // the other node's notices, line by line, before the result.
  const ServerProcess& other = owner == a->instance() ? *b : *a;
  std::vector<std::string> names;
  std::string out;
  std::string name;
  int status = other.StreamLines(
      "/v1/jobs/" + id + "/events",
      [&](const std::string& line, Clock::time_point) {
        if (line.rfind("event: ", 0) == 0) {
          name = line.substr(7);
          names.push_back(name);
        } else if (line.rfind("data: ", 0) == 0 && name == "stdout") {
          out += json::parse(line.substr(6), nullptr, false).value("data", "");
        }
        return name != "result";
      },
      seconds(30));
  EXPECT_EQ(status, 200);
  EXPECT_EQ(out, "line1\nline2\nline3\nline4\nline5\n");
  ASSERT_FALSE(names.empty());
  EXPECT_EQ(names.back(), "result");
  auto first_stdout = std::find(names.begin(), names.end(), "stdout");
  auto running = std::find(names.begin(), names.end(), "status");
  EXPECT_LT(running, first_stdout) << "a status (running) comes before the output";
  EXPECT_TRUE(a->Stop()) << a->log();
  EXPECT_TRUE(b->Stop()) << b->log();
}

TEST_F(PgFleetTest, ADrainedNodeRejoinsWithoutLosingOrRepeatingAJob) {
  auto nodes = Nodes(2);
  auto& a = nodes[0];
  auto& b = nodes[1];
  ASSERT_TRUE(a->started() && b->started());
  std::vector<std::string> ids;
  for (int i = 0; i < 8; ++i) {
    const ServerProcess& to = i % 2 ? *a : *b;
    ids.push_back(Submit(to, "import time\ntime.sleep(1)\nprint(" + std::to_string(i) + ")"));
  }
  const std::string on_b =
      "SELECT id FROM jobs WHERE status = 'running' AND owner = '" + b->instance() + "'";
  ASSERT_TRUE(Eventually([&] { return !Query(conninfo_, on_b).empty(); })) << b->log();
  EXPECT_TRUE(b->Stop()) << b->log();  // Drains: what B ran goes back to the fleet.
  auto b2 = std::make_unique<ServerProcess>(*b);
  ASSERT_TRUE(b2->started()) << b2->log();
  for (int i = 8; i < 12; ++i) {
    ids.push_back(Submit(*b2, "print(" + std::to_string(i) + ")"));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    json rec = WaitTerminal(i % 2 ? *b2 : *a, ids[i]);
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
    EXPECT_EQ(rec["result"]["stdout"], std::to_string(i) + "\n") << rec.dump();
  }
  EXPECT_EQ(CountByStatus(conninfo_),
            (std::map<std::string, int>{{"succeeded", static_cast<int>(ids.size())}}));
  for (const auto& [id, row] : JobRows()) {
    EXPECT_EQ(row.transitions.at("succeeded"), 1) << id;
    EXPECT_LE(row.attempt, 2) << id;
  }
  EXPECT_TRUE(a->Stop()) << a->log();
  EXPECT_TRUE(b2->Stop()) << b2->log();
}

TEST_F(PgFleetTest, PostgresRestartingUnderLoadLosesNoAcceptedJob) {
  auto nodes = Nodes(2);
  auto& a = nodes[0];
  auto& b = nodes[1];
  ASSERT_TRUE(a->started() && b->started());
  // Submissions of half-second jobs alternate between the nodes, so that
  // jobs are queued and running when PostgreSQL stops. Each counts for a
  // phase only if it was sent and answered within it: kDown starts once
  // PostgreSQL has stopped and ends before it is started again.
  enum Phase { kUp, kDown, kBack, kPhases };
  std::atomic<int> phase{kUp};
  std::mutex mu;
  std::vector<std::string> accepted;
  int accepted_in[kPhases][2] = {};  // [phase][node a, b]
  int refused_in[kPhases][2] = {};
  int refused = 0;
  std::atomic<bool> stop{false};
  std::thread load([&] {
    for (int i = 0; !stop; ++i) {
      const int node = i % 2;
      const int sent_in = phase;
      HttpAnswer ans = (node == 0 ? *a : *b)
                           .Post("/v1/jobs", Bash("sleep 0.5; echo " + std::to_string(i)).dump());
      const int answered_in = phase;
      std::lock_guard<std::mutex> lock(mu);
      if (ans.status == 202) {
        accepted.push_back(ans.json.value("id", ""));
        if (sent_in == answered_in) ++accepted_in[sent_in][node];
      } else {
        // The database was down: not accepted, and the client is told so.
        EXPECT_EQ(ans.status, 503) << ans.body;
        EXPECT_EQ(ans.json["error"].value("code", ""), "store_unavailable") << ans.body;
        ++refused;
        if (sent_in == answered_in) ++refused_in[sent_in][node];
      }
      std::this_thread::sleep_for(milliseconds(50));
    }
  });
  // Each node answers `n` times in a phase before the next begins. No
  // ASSERT until the load thread is joined and PostgreSQL runs again.
  auto both = [&](int(&counts)[kPhases][2], int p, int n) {
    return Eventually([&] {
      std::lock_guard<std::mutex> lock(mu);
      return counts[p][0] >= n && counts[p][1] >= n;
    });
  };
  EXPECT_TRUE(both(accepted_in, kUp, 3))
      << "the nodes did not accept jobs before PostgreSQL stopped";
  Rows in_flight =
      Query(conninfo_, "SELECT count(*) FROM jobs WHERE status IN ('queued', 'running')");
  Status stopped = pg_->Stop();
  EXPECT_TRUE(stopped.ok()) << stopped.ToString();
  phase = kDown;
  EXPECT_TRUE(both(refused_in, kDown, 1))
      << "a node did not refuse a job while PostgreSQL was down";
  phase = kBack;
  Status restarted = pg_->StartAgain();
  EXPECT_TRUE(restarted.ok()) << restarted.ToString();
  EXPECT_TRUE(both(accepted_in, kBack, 1)) << "a node did not accept jobs again after the restart";
  stop = true;
  load.join();
  ASSERT_TRUE(stopped.ok() && restarted.ok());
  // Nothing was accepted while the database was down (it could not have
  // been stored).
  EXPECT_EQ(accepted_in[kDown][0] + accepted_in[kDown][1], 0);

  ASSERT_FALSE(accepted.empty());
  for (const std::string& id : accepted) {
    json rec = WaitTerminal(*a, id);
    EXPECT_EQ(rec["status"], "succeeded") << rec.dump();
  }
  EXPECT_EQ(CountByStatus(conninfo_),
            (std::map<std::string, int>{{"succeeded", static_cast<int>(accepted.size())}}));
  for (const auto& [id, row] : JobRows()) EXPECT_EQ(row.transitions.at("succeeded"), 1) << id;
  std::cout << "[  FIGURE  ] fleet_accepted_across_pg_restart = " << accepted.size()
            << "\n[  FIGURE  ] fleet_in_flight_at_pg_stop = "
            << (in_flight.empty() ? "?" : in_flight[0][0])
            << "\n[  FIGURE  ] fleet_refused_while_pg_down = " << refused << std::endl;
  EXPECT_EQ(a->Get("/readyz").status, 200);
  EXPECT_EQ(b->Get("/readyz").status, 200);
  EXPECT_TRUE(a->Stop()) << a->log();
  EXPECT_TRUE(b->Stop()) << b->log();
}

// Requests alternate between two nodes: the tier's 6 per minute are taken
// from one bucket in the shared database (per-node buckets would let all 12
// through), and both nodes refuse once it is empty.
TEST_F(PgFleetTest, ATiersRequestsPerMinuteIsSharedByTheNodes) {
  const std::string kTinyKey = "tiny-key-0123456789";
  const std::string auth =
      "auth:\n  mode: api_keys\n  keys:\n    - {tenant: tiny, tier: tiny, "
      "key_sha256: \"" +
      Sha256Hex(kTinyKey) + "\"}\ntiers:\n  tiny: {requests_per_minute: 6}\n";
  auto nodes = Nodes(2, auth);
  ASSERT_TRUE(nodes[0]->started() && nodes[1]->started());
  int allowed = 0;
  int limited[2] = {0, 0};
  // 6 per minute is one token per 10 s: 12 quick calls cannot refill one.
  for (int i = 0; i < 12; ++i) {
    HttpAnswer a = nodes[i % 2]->Call("GET", "/v1/jobs", kTinyKey);
    if (a.status == 200) {
      ++allowed;
      EXPECT_LT(i, 6) << "allowed after the bucket was empty";
      continue;
    }
    EXPECT_EQ(a.status, 429) << a.body;
    EXPECT_EQ(a.json["error"]["code"], "rate_limited") << a.body;
    ++limited[i % 2];
  }
  EXPECT_EQ(allowed, 6);
  EXPECT_EQ(limited[0], 3);
  EXPECT_EQ(limited[1], 3);
  Rows buckets = Query(conninfo_, "SELECT tenant FROM rate_buckets");
  ASSERT_EQ(buckets.size(), 1u);
  EXPECT_EQ(buckets[0][0], "tiny");
}

TEST_F(PgFleetTest, TwoNodesSendEachWebhookOnceAndEmptyTheOutbox) {
  // A healthy receiver in this process, counting the deliveries per job.
  std::mutex mu;
  std::map<std::string, int> hits;
  httplib::Server receiver;
  receiver.Post("/hook", [&](const httplib::Request& req, httplib::Response& res) {
    json body = json::parse(req.body, nullptr, false);
    std::lock_guard<std::mutex> lock(mu);
    ++hits[body.is_object() ? body.value("id", "?") : "?"];
    res.status = 200;
  });
  const int port = receiver.bind_to_any_port("127.0.0.1");
  std::thread serving([&] { receiver.listen_after_bind(); });
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/hook";
  auto nodes = Nodes(2, "jobs: {webhook_allow_private: true}\n");
  auto& a = nodes[0];
  auto& b = nodes[1];
  ASSERT_TRUE(a->started() && b->started());
  constexpr int kJobs = 10;
  std::vector<std::string> ids;
  for (int i = 0; i < kJobs; ++i) {
    json job = Bash("echo " + std::to_string(i));
    job["callback_url"] = url;
    HttpAnswer answer = (i % 2 == 0 ? a : b)->Post("/v1/jobs", job.dump());
    ASSERT_EQ(answer.status, 202) << answer.body;
    ids.push_back(answer.json.value("id", ""));
  }
  for (const std::string& id : ids) EXPECT_EQ(WaitTerminal(*a, id)["status"], "succeeded");
  auto owed = [&] {
    Rows rows = Query(conninfo_, "SELECT count(*) FROM webhook_outbox");
    return rows.empty() ? -1 : std::stoi(rows[0][0]);
  };
  EXPECT_TRUE(Eventually(
      [&] {
        std::lock_guard<std::mutex> lock(mu);
        return hits.size() >= static_cast<size_t>(kJobs) && owed() == 0;
      },
      seconds(60)));
  {
    std::lock_guard<std::mutex> lock(mu);
    EXPECT_EQ(hits.size(), static_cast<size_t>(kJobs));
    for (const std::string& id : ids) EXPECT_EQ(hits[id], 1) << id;
  }
  EXPECT_TRUE(a->Stop()) << a->log();
  EXPECT_TRUE(b->Stop()) << b->log();
  receiver.stop();
  serving.join();
}

}  // namespace
}  // namespace coderunner::testing
