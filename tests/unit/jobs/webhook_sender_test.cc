#include "coderunner/jobs/webhook_sender.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "coderunner/common/hmac_sha256.h"
#include "coderunner/jobs/webhook_signature.h"
#include "unit/jobs/hook_server.h"

namespace coderunner::jobs {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::steady_clock;

// --- ValidateCallbackUrl -----------------------------------------------------

TEST(ValidateCallbackUrlTest, AcceptsPublicHttpAndHttpsUrls) {
  for (const std::string url : {
           "http://example.com",
           "https://example.com/hooks/job?id=1&sig=abc#frag",
           "HTTPS://Example.COM:8443/x",
           "http://hooks.example.com:80",
           "https://93.184.216.34/cb",
           "https://[2606:2800:220:1:248:1893:25c8:1946]:443/cb",
           "http://172.32.0.1/",  // Just outside 172.16/12.
           "http://11.0.0.1/",    // Just outside 10/8.
           "http://localhost.example.com/",
       }) {
    SCOPED_TRACE(url);
    Status s = ValidateCallbackUrl(url, /*allow_private=*/false);
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
}

TEST(ValidateCallbackUrlTest, RefusesOtherSchemesMissingHostsAndUserInfo) {
  for (const std::string url : {
           "",
           "example.com/cb",
           "//example.com/cb",
           "ftp://example.com/file",
           "file:///etc/passwd",
           "gopher://example.com:70/_x",
           "javascript:alert(1)",
           "httpx://example.com",
           "http:/example.com",
           "http://",
           "http:///path",
           "https://:443/",
           "http://?q=1",
           "http://user:pass@example.com/",
           "http://user@example.com/",
           "http://example.com@127.0.0.1/",
           "http://exa mple.com/",
           "http://example.com/\n",
           "http://example.com\\@127.0.0.1/",
           "http://example.com:0/",
           "http://example.com:65536/",
           "http://example.com:80a/",
           "http://[::1/",
           "http://[not-an-ip]/",
           "http://[fe80::1%25eth0]/",
           "http://exa%6dple.com/",
       }) {
    SCOPED_TRACE(url);
    for (bool allow_private : {false, true}) {
      Status s = ValidateCallbackUrl(url, allow_private);
      EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(s.reason(), "invalid_callback_url");
    }
  }
}

TEST(ValidateCallbackUrlTest, RefusesLoopbackLinkLocalPrivateAndUnspecifiedUnlessAllowed) {
  for (const std::string url : {
           "http://localhost/",
           "http://LOCALHOST:8080/cb",
           "http://localhost./",
           "http://api.localhost/",
           "http://127.0.0.1/",
           "http://127.1.2.3:9000/",
           "http://127.1/",       // Short form, still 127.0.0.1.
           "http://2130706433/",  // Decimal 127.0.0.1.
           "http://0x7f000001/",  // Hex 127.0.0.1.
           "http://[::1]/",
           "http://[::]/",
           "http://[::ffff:127.0.0.1]/",
           "http://[::ffff:169.254.169.254]/",
           "http://169.254.169.254/latest/meta-data/",
           "http://10.0.0.1/",
           "http://172.16.0.1/",
           "http://172.31.255.255/",
           "http://192.168.1.1/",
           "http://100.100.100.200/",  // Shared address space (a cloud's metadata).
           "http://0.0.0.0/",
           "http://0/",
           "http://[fe80::1]/",
           "http://[fc00::1]/",
           "http://[fd12:3456::1]/",
           "http://192.0.0.170/",                             // IETF protocol assignments.
           "http://198.18.0.1/",                              // Benchmarking.
           "http://240.0.0.1/",                               // Reserved.
           "http://255.255.255.255/",                         // Broadcast.
           "http://[2002:a9fe:a9fe::1]/",                     // 6to4 of 169.254.169.254.
           "http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",  // Teredo of 127.0.0.1.
           "http://[::ffff:0:127.0.0.1]/",                    // IPv4-translated.
       }) {
    SCOPED_TRACE(url);
    Status refused = ValidateCallbackUrl(url, /*allow_private=*/false);
    EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(refused.reason(), "invalid_callback_url");
    Status allowed = ValidateCallbackUrl(url, /*allow_private=*/true);
    EXPECT_TRUE(allowed.ok()) << allowed.ToString();
  }
}

TEST(ValidateCallbackUrlTest, RefusesUrlsLongerThan2048Bytes) {
  std::string prefix = "https://example.com/";
  std::string at_limit = prefix + std::string(2048 - prefix.size(), 'a');
  EXPECT_TRUE(ValidateCallbackUrl(at_limit, false).ok());
  Status s = ValidateCallbackUrl(at_limit + "a", false);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.reason(), "invalid_callback_url");
}

// --- Delivery against a real local HTTP server -------------------------------

using testutil::HookServer;

WebhookOptions FastOptions() {
  WebhookOptions o;
  o.allow_private = true;
  o.retries = 3;
  o.first_backoff = milliseconds(10);
  o.timeout = milliseconds(5000);
  o.threads = 2;
  return o;
}

TEST(WebhookSenderTest, DeliversBodyWithJsonContentType) {
  HookServer server;
  WebhookSender sender(FastOptions());
  ASSERT_TRUE(sender.Enqueue("t", server.Url(), R"({"id":"job-1","status":"succeeded"})"));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body, R"({"id":"job-1","status":"succeeded"})");
  EXPECT_EQ(requests[0].content_type, "application/json");
  WebhookSender::Stats stats = sender.stats();
  EXPECT_EQ(stats.delivered, 1u);
  EXPECT_EQ(stats.failed, 0u);
  EXPECT_EQ(stats.dropped, 0u);
}

TEST(WebhookSenderTest, DeliversLargeBodiesIntact) {
  HookServer server;
  WebhookSender sender(FastOptions());
  std::string body = "{\"stdout\":\"" + std::string(300000, 'x') + "\"}";
  ASSERT_TRUE(sender.Enqueue("t", server.Url(), body));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));
  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].body, body);
  EXPECT_EQ(sender.stats().delivered, 1u);
}

TEST(WebhookSenderTest, CountsAny2xxAsDelivered) {
  HookServer server([](int) { return 204; });
  WebhookSender sender(FastOptions());
  ASSERT_TRUE(sender.Enqueue("t", server.Url(), "{}"));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));
  EXPECT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(sender.stats().delivered, 1u);
}

TEST(WebhookSenderTest, RetriesOn500ThenSucceedsOnThirdAttempt) {
  HookServer server([](int n) { return n < 3 ? 500 : 200; });
  WebhookSender sender(FastOptions());
  ASSERT_TRUE(sender.Enqueue("t", server.Url(), R"({"n":1})"));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));

  auto requests = server.requests();
  ASSERT_EQ(requests.size(), 3u);
  for (const auto& r : requests) EXPECT_EQ(r.body, R"({"n":1})");
  WebhookSender::Stats stats = sender.stats();
  EXPECT_EQ(stats.delivered, 1u);
  EXPECT_EQ(stats.failed, 0u);
}

TEST(WebhookSenderTest, GivesUpAfterRetriesPlusOneAttemptsAndCountsFailed) {
  HookServer server([](int) { return 503; });
  WebhookOptions options = FastOptions();
  options.retries = 2;
  WebhookSender sender(options);
  ASSERT_TRUE(sender.Enqueue("t", server.Url(), "{}"));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));

  EXPECT_EQ(server.requests().size(), 3u);
  WebhookSender::Stats stats = sender.stats();
  EXPECT_EQ(stats.delivered, 0u);
  EXPECT_EQ(stats.failed, 1u);
}

TEST(WebhookSenderTest, DoesNotFollowRedirects) {
  HookServer server;
  WebhookOptions options = FastOptions();
  options.retries = 0;
  WebhookSender sender(options);
  ASSERT_TRUE(sender.Enqueue("t", server.Url("/redirect"), "{}"));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));

  EXPECT_EQ(server.redirects(), 1);
  EXPECT_TRUE(server.requests().empty());
  EXPECT_EQ(sender.stats().failed, 1u);
}

TEST(WebhookSenderTest, CountsUnreachableHostAsFailed) {
  int port;
  {
    HookServer closed;  // Find a port, then free it: nothing listens there.
    port = std::stoi(closed.Url().substr(std::string("http://127.0.0.1:").size()));
  }
  WebhookOptions options = FastOptions();
  options.retries = 1;
  WebhookSender sender(options);
  ASSERT_TRUE(sender.Enqueue("t", "http://127.0.0.1:" + std::to_string(port) + "/hook", "{}"));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));
  EXPECT_EQ(sender.stats().failed, 1u);
  EXPECT_EQ(sender.stats().delivered, 0u);
}

TEST(WebhookSenderTest, RefusesLoopbackAtConnectTimeWhenPrivateNotAllowed) {
  HookServer server;
  WebhookOptions options = FastOptions();
  options.allow_private = false;
  WebhookSender sender(options);
  // Both reach 127.0.0.1: one literally, one through the resolver.
  ASSERT_TRUE(sender.Enqueue("t", server.Url(), "{}"));
  ASSERT_TRUE(sender.Enqueue(
      "t", "http://localhost:" + server.Url().substr(std::string("http://127.0.0.1:").size()),
      "{}"));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));

  EXPECT_TRUE(server.requests().empty());
  WebhookSender::Stats stats = sender.stats();
  EXPECT_EQ(stats.failed, 2u);
  EXPECT_EQ(stats.delivered, 0u);
}

TEST(WebhookSenderTest, RefusesMalformedUrlsWithoutSending) {
  WebhookSender sender(FastOptions());
  ASSERT_TRUE(sender.Enqueue("t", "ftp://127.0.0.1/hook", "{}"));
  ASSERT_TRUE(sender.Enqueue("t", "http://user:pw@127.0.0.1/hook", "{}"));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));
  EXPECT_EQ(sender.stats().failed, 2u);
}

TEST(WebhookSenderTest, DropsAndCountsWhenQueueIsFull) {
  // Declared before the server, whose handler threads use them.
  std::mutex mu;
  std::condition_variable cv;
  bool release = false;
  HookServer server;
  server.OnRequest([&] {
    std::unique_lock lock(mu);
    cv.wait_for(lock, seconds(10), [&] { return release; });
  });
  WebhookOptions options = FastOptions();
  options.threads = 1;
  options.max_pending = 2;
  WebhookSender sender(options);

  // The first is taken by the only thread and blocks in the server, so the
  // queue then holds exactly what is enqueued next.
  ASSERT_TRUE(sender.Enqueue("t", server.Url(), "1"));
  ASSERT_TRUE(server.WaitForRequests(1));
  EXPECT_TRUE(sender.Enqueue("t", server.Url(), "2"));
  EXPECT_TRUE(sender.Enqueue("t", server.Url(), "3"));
  EXPECT_FALSE(sender.Enqueue("t", server.Url(), "4"));
  EXPECT_FALSE(sender.Enqueue("t", server.Url(), "5"));
  EXPECT_EQ(sender.stats().dropped, 2u);

  {
    std::lock_guard lock(mu);
    release = true;
  }
  cv.notify_all();
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));
  WebhookSender::Stats stats = sender.stats();
  EXPECT_EQ(stats.delivered, 3u);
  EXPECT_EQ(stats.dropped, 2u);
  std::vector<std::string> bodies;
  for (const auto& r : server.requests()) bodies.push_back(r.body);
  EXPECT_EQ(bodies, (std::vector<std::string>{"1", "2", "3"}));
}

TEST(WebhookSenderTest, WaitIdleTimesOutWhileADeliveryIsPending) {
  HookServer server([](int) { return 500; });
  WebhookOptions options = FastOptions();
  options.first_backoff = seconds(60);
  WebhookSender sender(options);
  ASSERT_TRUE(sender.Enqueue("t", server.Url(), "{}"));
  EXPECT_FALSE(sender.WaitIdle(milliseconds(50)));
}

// Only so that a destructor that sits out a backoff (an hour below) fails
// the test instead of holding it: never what a test asserts.
constexpr auto kHangGuard = seconds(30);

// Until `n` deliveries of `sender` sleep out a backoff.
bool UntilBackingOff(const WebhookSender& sender, uint64_t n) {
  for (auto until = steady_clock::now() + kHangGuard; steady_clock::now() < until;) {
    if (sender.stats().backing_off == n) return true;
    std::this_thread::sleep_for(milliseconds(1));
  }
  return sender.stats().backing_off == n;
}

// Destroys `sender` on a thread of its own; true once the destructor has
// returned. A destructor still running after kHangGuard is left to finish
// on that thread (it only sleeps), so that the test can fail and go on.
bool DestroyedWithinTheGuard(std::unique_ptr<WebhookSender> sender) {
  auto done = std::make_shared<std::promise<void>>();
  std::future<void> returned = done->get_future();
  std::thread([sender = std::move(sender), done]() mutable {
    sender.reset();
    done->set_value();
  }).detach();
  return returned.wait_for(kHangGuard) == std::future_status::ready;
}

TEST(WebhookSenderTest, DestructorReturnsPromptlyDuringLongBackoff) {
  HookServer server([](int) { return 500; });
  WebhookOptions options = FastOptions();
  options.first_backoff = hours(1);
  auto sender = std::make_unique<WebhookSender>(options);
  ASSERT_TRUE(sender->Enqueue("t1", server.Url(), "{}"));
  ASSERT_TRUE(sender->Enqueue("t2", server.Url(), "{}"));
  // Both threads have had a first attempt and now sleep out the backoff:
  // the destructor has to end a backoff, not find them between attempts.
  ASSERT_TRUE(server.WaitForRequests(2));
  ASSERT_TRUE(UntilBackingOff(*sender, 2)) << sender->stats().backing_off;

  EXPECT_TRUE(DestroyedWithinTheGuard(std::move(sender)))
      << "the destructor sits out the hour of backoff";
  EXPECT_EQ(server.requests().size(), 2u);
}

TEST(WebhookSenderTest, DestructorAbandonsQueuedDeliveries) {
  HookServer server([](int) { return 500; });
  WebhookOptions options = FastOptions();
  options.threads = 1;
  options.first_backoff = hours(1);
  auto sender = std::make_unique<WebhookSender>(options);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(sender->Enqueue("t", server.Url(), "{}"));
  // The only thread sleeps out the first delivery's backoff; four wait.
  ASSERT_TRUE(server.WaitForRequests(1));
  ASSERT_TRUE(UntilBackingOff(*sender, 1)) << sender->stats().backing_off;
  EXPECT_EQ(sender->backlog(), 5u);

  EXPECT_TRUE(DestroyedWithinTheGuard(std::move(sender)))
      << "the destructor sits out the hour of backoff or sends the queued deliveries";
  // None of the four queued deliveries was attempted.
  EXPECT_EQ(server.requests().size(), 1u);
}

// --- Fairness between tenants and signatures --------------------------------

using testutil::BlackHole;

TEST(WebhookSenderTest, ATenantWhoseReceiverHangsDoesNotDelayAnother) {
  BlackHole hole;
  HookServer good;
  WebhookOptions options = FastOptions();
  options.threads = 2;
  options.max_in_flight_per_tenant = 1;
  WebhookSender sender(options);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(sender.Enqueue("slow", hole.server().Url(), "s"));
  ASSERT_TRUE(hole.server().WaitForRequests(1));
  ASSERT_TRUE(sender.Enqueue("quick", good.Url(), "q"));
  // Delivered while every one of the slow tenant's deliveries still hangs.
  EXPECT_TRUE(good.WaitForRequests(1));
  EXPECT_EQ(good.requests().size(), 1u);
  // The slow tenant has one delivery out at a time, never both threads.
  EXPECT_EQ(hole.server().requests().size(), 1u);
  hole.Release();
  ASSERT_TRUE(sender.WaitIdle(seconds(20)));
  EXPECT_EQ(hole.server().requests().size(), 4u);
  EXPECT_EQ(sender.stats().delivered, 5u);
}

TEST(WebhookSenderTest, EachTenantsQueueIsBoundedOnItsOwn) {
  BlackHole hole;
  HookServer good;
  WebhookOptions options = FastOptions();
  options.threads = 1;
  options.max_pending_per_tenant = 2;
  WebhookSender sender(options);
  ASSERT_TRUE(sender.Enqueue("slow", hole.server().Url(), "1"));
  ASSERT_TRUE(hole.server().WaitForRequests(1));  // In flight, not pending.
  EXPECT_TRUE(sender.Enqueue("slow", hole.server().Url(), "2"));
  EXPECT_TRUE(sender.Enqueue("slow", hole.server().Url(), "3"));
  EXPECT_FALSE(sender.Enqueue("slow", hole.server().Url(), "4"));
  EXPECT_EQ(sender.stats().dropped, 1u);
  EXPECT_TRUE(sender.Enqueue("quick", good.Url(), "q"));
  hole.Release();
  ASSERT_TRUE(sender.WaitIdle(seconds(20)));
  EXPECT_EQ(sender.stats().delivered, 4u);
  EXPECT_EQ(good.requests().size(), 1u);
}

TEST(WebhookSenderTest, SignsEveryDeliveryWithTheTenantsKey) {
  HookServer server;
  WebhookOptions options = FastOptions();
  options.secret = "service secret";
  WebhookSender sender(options);
  const std::string body = R"({"id":"job-1","status":"succeeded"})";
  ASSERT_TRUE(sender.Enqueue("acme", server.Url(), body));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));
  ASSERT_EQ(server.requests().size(), 1u);
  const std::string sig = server.requests()[0].signature;
  // t=<digits>,v1=<64 hex>
  ASSERT_EQ(sig.rfind("t=", 0), 0u) << sig;
  size_t comma = sig.find(",v1=");
  ASSERT_NE(comma, std::string::npos) << sig;
  std::string t = sig.substr(2, comma - 2);
  std::string mac = sig.substr(comma + 4);
  EXPECT_EQ(mac, HmacSha256Hex(WebhookTenantKey("service secret", "acme"), t + "." + body));
  // Another tenant's key does not verify it.
  EXPECT_NE(mac, HmacSha256Hex(WebhookTenantKey("service secret", "globex"), t + "." + body));
}

TEST(WebhookSenderTest, NoSecretSendsNoSignature) {
  HookServer server;
  WebhookSender sender(FastOptions());
  ASSERT_TRUE(sender.Enqueue("acme", server.Url(), "{}"));
  ASSERT_TRUE(sender.WaitIdle(seconds(10)));
  ASSERT_EQ(server.requests().size(), 1u);
  EXPECT_EQ(server.requests()[0].signature, "");
}

}  // namespace
}  // namespace coderunner::jobs
