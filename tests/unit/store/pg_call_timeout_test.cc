// A PostgreSQL server that accepted a connection and then never answers
// (stopped with SIGSTOP, wedged, a partition that keeps the socket open:
// TCP keepalives see a live peer) must fail a store call within
// store.call_timeout_ms instead of holding its thread for ever. A TCP proxy
// in front of the test cluster that stops forwarding stands in for such a
// server: its kernel still acknowledges every byte, as a stopped
// postmaster's does. Before the bound, each frozen case here hung.
#include <arpa/inet.h>
#include <errno.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/store/job_store.h"
#include "coderunner/store/postgres/pg_job_store.h"
#include "pg/temp_postgres.h"
#include "store/postgres/pg_connection.h"
#include "store/store_errors.h"

namespace coderunner::store {
namespace {

// The value of `key` in key=value `conninfo` ("" if absent).
std::string ConninfoValue(const std::string& conninfo, const std::string& key) {
  size_t at = conninfo.find(key + "=");
  if (at == std::string::npos) return "";
  at += key.size() + 1;
  return conninfo.substr(at, conninfo.find(' ', at) - at);
}

// Listens on 127.0.0.1 and relays each connection to the test cluster's
// Unix socket, until Freeze: then it reads and forwards nothing more, but
// keeps every socket open.
class FreezableProxy {
 public:
  FreezableProxy() {
    const std::string conninfo = testing::SharedPostgres().Conninfo();
    target_ = ConninfoValue(conninfo, "host") + "/.s.PGSQL." + ConninfoValue(conninfo, "port");
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(addr);
    if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), len) != 0 ||
        listen(listen_fd_, 16) != 0 ||
        getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      ADD_FAILURE() << "proxy listen: " << strerror(errno);
    }
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { AcceptLoop(); });
  }
  ~FreezableProxy() {
    stop_ = true;
    acceptor_.join();  // Then nothing adds to pumps_.
    for (auto& t : pumps_) t.join();
    close(listen_fd_);
  }

  // The cluster's conninfo, through this proxy.
  std::string Conninfo() const {
    return "host=127.0.0.1 port=" + std::to_string(port_) +
           " user=postgres dbname=" + ConninfoValue(testing::SharedPostgres().Conninfo(), "dbname");
  }
  void Freeze() { frozen_ = true; }

 private:
  void AcceptLoop() {
    while (!stop_) {
      pollfd p{listen_fd_, POLLIN, 0};
      if (poll(&p, 1, 50) <= 0) continue;
      int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (client < 0) continue;
      int server = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      sockaddr_un un{};
      un.sun_family = AF_UNIX;
      snprintf(un.sun_path, sizeof(un.sun_path), "%s", target_.c_str());
      if (connect(server, reinterpret_cast<sockaddr*>(&un), sizeof(un)) != 0) {
        ADD_FAILURE() << "proxy connect " << target_ << ": " << strerror(errno);
        close(client);
        close(server);
        continue;
      }
      pumps_.emplace_back([this, client, server] { Pump(client, server); });
    }
  }
  // Relays between `a` and `b` until either closes or the proxy stops.
  void Pump(int a, int b) {
    char buf[65536];
    while (!stop_) {
      if (frozen_) {
        usleep(20000);
        continue;
      }
      pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
      if (poll(p, 2, 50) <= 0) continue;
      bool open = true;
      for (int i = 0; i < 2 && open && !frozen_; ++i) {
        if ((p[i].revents & (POLLIN | POLLHUP)) == 0) continue;
        ssize_t n = read(p[i].fd, buf, sizeof(buf));
        open = n > 0 && write(p[1 - i].fd, buf, static_cast<size_t>(n)) == n;
      }
      if (!open) break;
    }
    close(a);
    close(b);
  }

  std::string target_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<bool> frozen_{false};
  std::thread acceptor_;
  std::vector<std::thread> pumps_;  // Added to by acceptor_ only.
};

constexpr int kBoundMs = 400;

struct FrozenCase {
  const char* name;
  size_t parameter_bytes;  // Of the statement sent after the freeze.
  bool script;             // ExecScript rather than Exec.
};

class PgCallTimeoutTest : public ::testing::TestWithParam<FrozenCase> {};

TEST_P(PgCallTimeoutTest, AFrozenServerFailsTheCallUnavailable) {
  const FrozenCase& c = GetParam();
  FreezableProxy proxy;
  auto conn = PgConnection::Connect(proxy.Conninfo(), "", 2000, "", kBoundMs);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto before = (*conn)->Exec("SELECT 1", {}, "before");
  ASSERT_TRUE(before.ok()) << before.status().ToString();
  EXPECT_EQ(before->Int(0, 0), 1);
  proxy.Freeze();
  Status got;
  if (c.script) {
    got = (*conn)->ExecScript("SELECT 1; SELECT 2", "frozen");
  } else {
    PgParams params;
    params.Bind(1, std::string(c.parameter_bytes, 'x'));
    got = (*conn)->Exec("SELECT length(?1)", params, "frozen").status();
  }
  EXPECT_EQ(got.code(), StatusCode::kUnavailable) << got.ToString();
  EXPECT_EQ(got.reason(), kReasonStoreUnavailable);
  EXPECT_NE(got.message().find("no answer from the server within 400 ms"), std::string::npos)
      << got.message();
  EXPECT_TRUE((*conn)->broken()) << "a timed-out connection must not go back to the pool";
}

INSTANTIATE_TEST_SUITE_P(
    Statements, PgCallTimeoutTest,
    ::testing::Values(FrozenCase{"SmallQuery", 8, false},
                      // More than the socket buffers hold: the send itself
                      // would block on a server that stopped reading.
                      FrozenCase{"StatementLargerThanTheSocketBuffers", 8 << 20, false},
                      FrozenCase{"Script", 0, true}),
    [](const ::testing::TestParamInfo<FrozenCase>& info) { return std::string(info.param.name); });

TEST(PgCallTimeoutTest, AStatementTheServerHoldsPastTheBoundFails) {
  auto conn = PgConnection::Connect(testing::SharedPostgres().Conninfo(), "", 2000, "", kBoundMs);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  auto slow = (*conn)->Exec("SELECT pg_sleep(3)", {}, "slow");
  EXPECT_EQ(slow.status().code(), StatusCode::kUnavailable) << slow.status().ToString();
  EXPECT_TRUE((*conn)->broken());
  // Within the bound, the same connection type answers as before.
  auto fresh = PgConnection::Connect(testing::SharedPostgres().Conninfo(), "", 2000, "", kBoundMs);
  ASSERT_TRUE(fresh.ok());
  auto quick = (*fresh)->Exec("SELECT 40 + 2", {}, "quick");
  ASSERT_TRUE(quick.ok()) << quick.status().ToString();
  EXPECT_EQ(quick->Int(0, 0), 42);
  EXPECT_FALSE((*fresh)->broken());
  auto failing = (*fresh)->ExecScript("SELECT 1; SELECT no_such_column; SELECT 3", "script");
  EXPECT_EQ(failing.reason(), kReasonStoreError) << failing.ToString();
  EXPECT_FALSE((*fresh)->broken()) << "a failed statement leaves the connection usable";
  EXPECT_TRUE((*fresh)->Exec("SELECT 1", {}, "after").ok());
}

// store.call_timeout_ms reaches the store's pooled connections.
TEST(PgCallTimeoutTest, TheStoreOptionBoundsEveryStoreCall) {
  auto db = testing::SharedPostgres().CreateDatabase();
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  FreezableProxy proxy;
  PgStoreOptions options;
  options.conninfo = proxy.Conninfo();
  const std::string dbname = ConninfoValue(*db, "dbname");
  options.conninfo.replace(options.conninfo.rfind("dbname=") + 7, std::string::npos, dbname);
  options.max_connections = 2;
  options.connect_timeout_ms = 2000;
  options.call_timeout_ms = kBoundMs;
  auto store = PgJobStore::Open(options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  ASSERT_TRUE((*store)->Ping().ok());
  proxy.Freeze();
  Status ping = (*store)->Ping();
  EXPECT_EQ(ping.code(), StatusCode::kUnavailable) << ping.ToString();
  EXPECT_EQ(ping.reason(), kReasonStoreUnavailable);
  auto got = (*store)->Get("job_missing", "");
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable) << got.status().ToString();
  store->reset();
  (void)testing::SharedPostgres().DropDatabase(*db);
}

}  // namespace
}  // namespace coderunner::store
