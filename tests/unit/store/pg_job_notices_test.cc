// PgJobNotices on a real PostgreSQL 15: delivery between two nodes, order,
// volume from several threads, junk on the channel, refused ids, and the
// subscription surviving a server restart and a killed session. Tests that
// stop the server start a cluster of their own; the rest use the ctest
// fixture's cluster (one database per test).
#include "coderunner/store/postgres/pg_job_notices.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/store/job_store.h"
#include "pg/temp_postgres.h"
#include "pg_query_int.h"
#include "store/job_notice_codec.h"
#include "store/postgres/pg_connection.h"

namespace coderunner::store {
namespace {

using coderunner::testing::SharedPostgres;
using coderunner::testing::TempPostgres;

// A generous bound on waiting for a notice (not an assertion on speed).
constexpr auto kBudget = std::chrono::seconds(60);
constexpr const char* kSentinel = "c:sentinel";

PgStoreOptions Options(const std::string& conninfo) {
  PgStoreOptions options;
  options.conninfo = conninfo;
  options.connect_timeout_ms = 2000;
  return options;
}

JobNotice Notice(JobNotice::Kind kind, const std::string& id) {
  JobNotice notice;
  notice.kind = kind;
  notice.job_id = id;
  return notice;
}

JobNotice Changed(const std::string& id) { return Notice(JobNotice::Kind::kChanged, id); }

// What a subscriber heard, as payload texts, and how often it resynced.
class Collector {
 public:
  std::function<void(const JobNotice&)> OnNotice() {
    return [this](const JobNotice& notice) {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) ++late_;
      heard_.push_back(EncodeJobNotice(notice));
      cv_.notify_all();
    };
  }
  std::function<void()> OnResync() {
    return [this] {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_) ++late_;
      ++resyncs_;
      cv_.notify_all();
    };
  }
  // Waits until `payload` was heard; false past the budget.
  bool WaitFor(const std::string& payload) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kBudget, [&] {
      return std::find(heard_.begin(), heard_.end(), payload) != heard_.end();
    });
  }
  bool WaitForCount(size_t count) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kBudget, [&] { return heard_.size() >= count; });
  }
  bool WaitForResyncs(int count) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kBudget, [&] { return resyncs_ >= count; });
  }
  // From now on every callback counts as late (call after Stop).
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  std::vector<std::string> heard() {
    std::lock_guard<std::mutex> lock(mu_);
    return heard_;
  }
  int resyncs() {
    std::lock_guard<std::mutex> lock(mu_);
    return resyncs_;
  }
  int late() {
    std::lock_guard<std::mutex> lock(mu_);
    return late_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::string> heard_;
  int resyncs_ = 0;
  int late_ = 0;
  bool closed_ = false;
};

std::unique_ptr<PgJobNotices> OpenNotices(const std::string& conninfo) {
  auto notices = PgJobNotices::Open(Options(conninfo));
  EXPECT_TRUE(notices.ok()) << notices.status().message();
  return notices.ok() ? std::move(notices).value() : nullptr;
}

// Opens notices on `conninfo` and starts them into `collector`.
std::unique_ptr<PgJobNotices> Subscribe(const std::string& conninfo, Collector& collector) {
  std::unique_ptr<PgJobNotices> notices = OpenNotices(conninfo);
  if (notices == nullptr) return nullptr;
  Status started = notices->Start(collector.OnNotice(), collector.OnResync());
  EXPECT_TRUE(started.ok()) << started.message();
  return notices;
}

const std::string kListenerPidSql =
    std::string("SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE application_name = '") +
    kJobNoticesListenerApp + "' AND datname = current_database()";
const std::string kListenerCountSql =
    std::string("SELECT count(*) FROM pg_stat_activity WHERE application_name = '") +
    kJobNoticesListenerApp + "' AND datname = current_database()";

// The number of listener sessions on `conninfo`'s database once it is
// `want` (a closed session leaves pg_stat_activity shortly after), or the
// last count seen when the budget runs out.
int64_t WaitForListeners(const std::string& conninfo, int64_t want) {
  const auto deadline = std::chrono::steady_clock::now() + kBudget;
  int64_t count = QueryInt(conninfo, kListenerCountSql);
  while (count != want && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    count = QueryInt(conninfo, kListenerCountSql);
  }
  return count;
}

class PgJobNoticesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto conninfo = SharedPostgres().CreateDatabase();
    ASSERT_TRUE(conninfo.ok()) << conninfo.status().message();
    conninfo_ = *conninfo;
  }

  std::string conninfo_;
};

TEST_F(PgJobNoticesTest, BothNodesHearEveryNoticeInOrder) {
  Collector heard_a;
  Collector heard_b;
  std::unique_ptr<PgJobNotices> a = Subscribe(conninfo_, heard_a);
  std::unique_ptr<PgJobNotices> b = Subscribe(conninfo_, heard_b);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  const std::vector<JobNotice> sent = {Notice(JobNotice::Kind::kQueued, ""), Changed("job-1"),
                                       Notice(JobNotice::Kind::kCancel, "job-1"),
                                       Notice(JobNotice::Kind::kQueued, "job-2"),
                                       Changed("sentinel")};
  for (const JobNotice& notice : sent) ASSERT_TRUE(a->Publish(notice).ok());

  const std::vector<std::string> expected = {"q:", "c:job-1", "x:job-1", "q:job-2", kSentinel};
  for (Collector* collector : {&heard_a, &heard_b}) {
    ASSERT_TRUE(collector->WaitFor(kSentinel));
    EXPECT_EQ(collector->heard(), expected);
    EXPECT_EQ(collector->resyncs(), 0);  // Listening from Start on.
  }
}

TEST_F(PgJobNoticesTest, ThousandNoticesFromFourThreadsArriveOnceEach) {
  constexpr int kThreads = 4;
  constexpr int kPerThread = 250;
  Collector heard;
  std::unique_ptr<PgJobNotices> subscriber = Subscribe(conninfo_, heard);
  std::unique_ptr<PgJobNotices> publisher = OpenNotices(conninfo_);
  ASSERT_NE(subscriber, nullptr);
  ASSERT_NE(publisher, nullptr);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int n = 0; n < kPerThread; ++n) {
        Status sent = publisher->Publish(Changed(std::to_string(t) + "-" + std::to_string(n)));
        EXPECT_TRUE(sent.ok()) << sent.message();
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  ASSERT_TRUE(publisher->Publish(Changed("sentinel")).ok());
  ASSERT_TRUE(heard.WaitFor(kSentinel));

  std::vector<std::string> got = heard.heard();
  ASSERT_EQ(got.size(), static_cast<size_t>(kThreads * kPerThread + 1));
  std::map<std::string, int> times;
  std::vector<int> next(kThreads, 0);  // Each thread's notices keep its order.
  for (size_t i = 0; i + 1 < got.size(); ++i) {
    ++times[got[i]];
    const std::string id = got[i].substr(2);
    const int t = std::stoi(id.substr(0, id.find('-')));
    EXPECT_EQ(std::stoi(id.substr(id.find('-') + 1)), next[t]++) << got[i];
  }
  EXPECT_EQ(times.size(), static_cast<size_t>(kThreads * kPerThread));
  for (const auto& [payload, count] : times) EXPECT_EQ(count, 1) << payload;
}

TEST_F(PgJobNoticesTest, JunkOnTheChannelIsIgnored) {
  Collector heard;
  std::unique_ptr<PgJobNotices> subscriber = Subscribe(conninfo_, heard);
  ASSERT_NE(subscriber, nullptr);
  auto raw = PgConnection::Connect(conninfo_, "", 2000);
  ASSERT_TRUE(raw.ok()) << raw.status().message();
  const std::vector<std::string> junk = {"",
                                         "q",
                                         "c",
                                         "c:",
                                         "x:",
                                         "z:job",
                                         "Q:job",
                                         "cx:job",
                                         "::",
                                         "c:has space",
                                         "c:tab\there",
                                         "c:new\nline",
                                         "c:caf\xc3\xa9",
                                         "x:" + std::string(129, 'a'),
                                         "{\"json\":true}",
                                         "c:ok-1"};  // The one valid payload.
  for (const std::string& payload : junk) {
    PgParams params;
    params.Bind(1, kJobNoticesChannel);
    params.Bind(2, payload);
    auto sent = (*raw)->Exec("SELECT pg_notify(?1, ?2)", params, "raw notify");
    ASSERT_TRUE(sent.ok()) << payload << ": " << sent.status().message();
  }
  ASSERT_TRUE(subscriber->Publish(Changed("sentinel")).ok());
  ASSERT_TRUE(heard.WaitFor(kSentinel));
  EXPECT_EQ(heard.heard(), (std::vector<std::string>{"c:ok-1", kSentinel}));
}

TEST_F(PgJobNoticesTest, PublishRefusesBadJobIds) {
  Collector heard;
  std::unique_ptr<PgJobNotices> notices = Subscribe(conninfo_, heard);
  ASSERT_NE(notices, nullptr);
  struct Case {
    JobNotice notice;
    bool ok;
  };
  const std::vector<Case> cases = {
      {Changed(""), false},
      {Notice(JobNotice::Kind::kCancel, ""), false},
      {Changed(std::string(129, 'a')), false},
      {Notice(JobNotice::Kind::kQueued, std::string(129, 'q')), false},
      {Changed("a b"), false},
      {Changed("a\nb"), false},
      {Changed(std::string("a\0b", 3)), false},
      {Notice(JobNotice::Kind::kCancel, "caf\xc3\xa9"), false},
      {Changed("a\x7f"), false},
      {Changed(std::string(128, 'm')), true},  // The longest id.
      {Changed("tenant:job-1"), true},         // ':' in an id is fine.
      {Notice(JobNotice::Kind::kQueued, ""), true},
  };
  std::vector<std::string> expected;
  for (const Case& c : cases) {
    Status sent = notices->Publish(c.notice);
    EXPECT_EQ(sent.ok(), c.ok) << c.notice.job_id;
    if (c.ok) {
      expected.push_back(EncodeJobNotice(c.notice));
    } else {
      EXPECT_EQ(sent.code(), StatusCode::kInvalidArgument) << c.notice.job_id;
      EXPECT_EQ(sent.reason(), kReasonInvalidNotice) << c.notice.job_id;
    }
  }
  ASSERT_TRUE(notices->Publish(Changed("sentinel")).ok());
  expected.push_back(kSentinel);
  ASSERT_TRUE(heard.WaitFor(kSentinel));
  EXPECT_EQ(heard.heard(), expected);  // Nothing refused went out.
}

TEST_F(PgJobNoticesTest, LiveOutputOfTheLargestSizeGoesThroughTheServer) {
  Collector heard;
  std::unique_ptr<PgJobNotices> notices = Subscribe(conninfo_, heard);
  ASSERT_NE(notices, nullptr);
  std::string every_byte;
  for (size_t i = 0; i < kMaxNoticeOutputBytes; ++i) every_byte.push_back(static_cast<char>(i));
  JobNotice largest = Notice(JobNotice::Kind::kOutput, std::string(127, 'j') + ":");
  largest.is_stderr = true;
  largest.offset = kMaxNoticeOutputOffset;
  largest.data = every_byte;
  const std::vector<JobNotice> sent = {Notice(JobNotice::Kind::kWatch, "job-1"), largest};
  for (const JobNotice& notice : sent) ASSERT_TRUE(notices->Publish(notice).ok());
  JobNotice too_big = largest;
  too_big.data.push_back('x');
  Status refused = notices->Publish(too_big);
  EXPECT_EQ(refused.reason(), kReasonInvalidNotice);
  ASSERT_TRUE(notices->Publish(Changed("sentinel")).ok());
  ASSERT_TRUE(heard.WaitFor(kSentinel));
  // Heard as sent: every byte of the data came back (re-encoded equal).
  EXPECT_EQ(heard.heard(),
            (std::vector<std::string>{"w:job-1", EncodeJobNotice(largest), kSentinel}));
}

TEST_F(PgJobNoticesTest, StartTwiceIsFailedPrecondition) {
  Collector heard;
  std::unique_ptr<PgJobNotices> notices = Subscribe(conninfo_, heard);
  ASSERT_NE(notices, nullptr);
  Status again = notices->Start(heard.OnNotice(), heard.OnResync());
  EXPECT_EQ(again.code(), StatusCode::kFailedPrecondition);
  notices->Stop();
  notices->Stop();  // Idempotent.
  EXPECT_EQ(notices->Start(heard.OnNotice(), heard.OnResync()).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(WaitForListeners(conninfo_, 0), 0);  // Its session is closed.
}

TEST_F(PgJobNoticesTest, OpenFailsWithoutAServerOrWithBadOptions) {
  PgStoreOptions options = Options("host=/nonexistent/crpg dbname=none user=postgres");
  options.password = "s3cret-pw";
  auto notices = PgJobNotices::Open(options);
  ASSERT_FALSE(notices.ok());
  EXPECT_EQ(notices.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(notices.status().reason(), kReasonStoreUnavailable);
  EXPECT_EQ(notices.status().message().find("s3cret-pw"), std::string::npos);
  EXPECT_NE(notices.status().message().find("/nonexistent/crpg"), std::string::npos);

  PgStoreOptions hasty = Options(conninfo_);
  hasty.connect_timeout_ms = 99;
  auto refused = PgJobNotices::Open(hasty);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(refused.status().reason(), kReasonInvalidNotice);
}

TEST_F(PgJobNoticesTest, KilledListenerSessionResyncsAndNoticesFlowAgain) {
  Collector heard;
  std::unique_ptr<PgJobNotices> notices = Subscribe(conninfo_, heard);
  ASSERT_NE(notices, nullptr);
  const int64_t pid = QueryInt(conninfo_, kListenerPidSql);
  ASSERT_GT(pid, 0);
  EXPECT_EQ(QueryInt(conninfo_, "SELECT pg_terminate_backend(" + std::to_string(pid) + ")::int"),
            1);

  ASSERT_TRUE(heard.WaitForResyncs(1));
  ASSERT_TRUE(notices->Publish(Changed("after")).ok());
  ASSERT_TRUE(heard.WaitFor("c:after"));
  EXPECT_EQ(heard.resyncs(), 1);
  const int64_t new_pid = QueryInt(conninfo_, kListenerPidSql);
  EXPECT_GT(new_pid, 0);
  EXPECT_NE(new_pid, pid);
}

// The tests below stop the server: each has a cluster of its own.
std::unique_ptr<TempPostgres> OwnCluster(std::string& conninfo) {
  auto pg = TempPostgres::Start();
  EXPECT_TRUE(pg.ok()) << pg.status().message();
  if (!pg.ok()) return nullptr;
  auto db = (*pg)->CreateDatabase();
  EXPECT_TRUE(db.ok()) << db.status().message();
  if (!db.ok()) return nullptr;
  conninfo = *db;
  return std::move(pg).value();
}

TEST(PgJobNoticesRestartTest, ResyncsAfterARestartAndNoticesFlowAgain) {
  std::string conninfo;
  std::unique_ptr<TempPostgres> pg = OwnCluster(conninfo);
  ASSERT_NE(pg, nullptr);
  Collector heard;
  std::unique_ptr<PgJobNotices> notices = Subscribe(conninfo, heard);
  ASSERT_NE(notices, nullptr);
  ASSERT_TRUE(notices->Publish(Changed("before")).ok());
  ASSERT_TRUE(heard.WaitFor("c:before"));

  ASSERT_TRUE(pg->Stop().ok());
  Status down = notices->Publish(Changed("while-down"));
  EXPECT_EQ(down.code(), StatusCode::kUnavailable);
  EXPECT_EQ(down.reason(), kReasonStoreUnavailable);
  ASSERT_TRUE(pg->StartAgain().ok());

  ASSERT_TRUE(heard.WaitForResyncs(1));
  Status up = notices->Publish(Changed("after"));  // A new publishing session too.
  ASSERT_TRUE(up.ok()) << up.message();
  ASSERT_TRUE(heard.WaitFor("c:after"));
  EXPECT_EQ(heard.heard(), (std::vector<std::string>{"c:before", "c:after"}));
  EXPECT_EQ(heard.resyncs(), 1);
}

TEST(PgJobNoticesRestartTest, StopWithTheServerGoneEndsEveryCallback) {
  std::string conninfo;
  std::unique_ptr<TempPostgres> pg = OwnCluster(conninfo);
  ASSERT_NE(pg, nullptr);
  Collector stopped;
  std::unique_ptr<PgJobNotices> notices = Subscribe(conninfo, stopped);
  ASSERT_NE(notices, nullptr);
  ASSERT_TRUE(pg->Stop().ok());
  notices->Stop();  // Its thread is between reconnect attempts, or in one.
  stopped.Close();

  // Back up: a stopped listener neither reconnects nor hears anything.
  ASSERT_TRUE(pg->StartAgain().ok());
  Collector other;
  std::unique_ptr<PgJobNotices> other_notices = Subscribe(conninfo, other);
  ASSERT_NE(other_notices, nullptr);
  ASSERT_TRUE(notices->Publish(Changed("sentinel")).ok());  // Publishing still works.
  ASSERT_TRUE(other.WaitFor(kSentinel));
  EXPECT_EQ(WaitForListeners(conninfo, 1), 1);  // Only the other's.
  EXPECT_EQ(stopped.late(), 0);
  EXPECT_TRUE(stopped.heard().empty());
  EXPECT_EQ(stopped.resyncs(), 0);
}

TEST(PgJobNoticesRestartTest, StartWhileTheServerIsDownResyncsOnceItIsUp) {
  std::string conninfo;
  std::unique_ptr<TempPostgres> pg = OwnCluster(conninfo);
  ASSERT_NE(pg, nullptr);
  std::unique_ptr<PgJobNotices> notices = OpenNotices(conninfo);
  ASSERT_NE(notices, nullptr);
  ASSERT_TRUE(pg->Stop().ok());
  Collector heard;
  Status started = notices->Start(heard.OnNotice(), heard.OnResync());
  EXPECT_TRUE(started.ok()) << started.message();  // Retried in the background.
  EXPECT_EQ(heard.resyncs(), 0);

  ASSERT_TRUE(pg->StartAgain().ok());
  ASSERT_TRUE(heard.WaitForResyncs(1));
  Status sent = notices->Publish(Changed("up"));
  ASSERT_TRUE(sent.ok()) << sent.message();
  ASSERT_TRUE(heard.WaitFor("c:up"));
  EXPECT_EQ(heard.resyncs(), 1);
  EXPECT_EQ(WaitForListeners(conninfo, 1), 1);
}

}  // namespace
}  // namespace coderunner::store
