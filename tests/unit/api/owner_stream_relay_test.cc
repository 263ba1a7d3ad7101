// CurlStreamRelay (src/api/owner_forwarder.h) between a real owner and a
// real caller, each an HTTP server or client on 127.0.0.1, with a relaying
// server between them: pieces reach the caller while the owner still
// writes, a caller that leaves ends the owner's stream, a multipart body
// is rebuilt part for part, a whole answer keeps its status and headers,
// and an owner that sends nothing is given up on.
#include <gtest/gtest.h>
#include <httplib.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "api/owner_forwarder.h"
#include "unit/serve_in_background.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// How long a test waits for what must happen; never reached when it does.
constexpr auto kPatience = std::chrono::seconds(20);

// `bytes` as hex (a part's content may be any bytes; JSON text may not).
std::string Hex(const std::string& bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) out += {kDigits[c >> 4], kDigits[c & 15]};
  return out;
}

class OwnerStreamRelayTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // "first", then, once the caller has it, "second".
    owner_.Get("/stream", [this](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("application/connect+json",
                                       [this](size_t, httplib::DataSink& sink) {
                                         sink.write("first", 5);
                                         WaitFor([this] { return first_delivered_; });
                                         sink.write("second", 6);
                                         sink.done();
                                         return true;
                                       });
    });
    // Pieces until the write fails.
    owner_.Get("/endless", [this](const httplib::Request&, httplib::Response& res) {
      res.set_chunked_content_provider("text/plain", [this](size_t, httplib::DataSink& sink) {
        const std::string piece(1024, 'x');
        while (sink.is_writable() && sink.write(piece.data(), piece.size())) {
        }
        Set([this] { owner_stream_ended_ = true; });
        return false;
      });
    });
    // Nothing until the test ends.
    owner_.Get("/silent", [this](const httplib::Request&, httplib::Response& res) {
      WaitFor([this] { return first_delivered_; });
      res.set_content("late", "text/plain");
    });
    owner_.Post("/parts", [](const httplib::Request& req, httplib::Response& res) {
      json parts = json::array();
      for (const auto& [name, part] : req.files) {
        parts.push_back({name, part.filename, part.content_type, Hex(part.content)});
      }
      res.set_content(parts.dump(), "application/json");
    });
    owner_.Post("/refuse", [](const httplib::Request& req, httplib::Response& res) {
      res.status = 401;
      res.set_header("WWW-Authenticate", "Bearer");
      res.set_header("X-Not-Relayed", "1");
      res.set_content(R"({"token":")" + req.get_header_value("X-Access-Token") + "\"}",
                      "application/json");
    });
    owner_port_ = owner_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(owner_port_, 0);
    owner_thread_ = testutil::ServeInBackground(owner_);
    relay_.Get(R"(/(\w+))", [this](const httplib::Request& req, httplib::Response& res) {
      auto answer = CurlStreamRelay(Make("GET", "/" + req.matches[1].str()));
      ASSERT_TRUE(answer.ok()) << answer.status().ToString();
      WriteAnswer(res, std::move(*answer));
    });
    const int relay_port = relay_.bind_to_any_port("127.0.0.1");
    ASSERT_GT(relay_port, 0);
    relay_thread_ = testutil::ServeInBackground(relay_);
    caller_ = std::make_unique<httplib::Client>("127.0.0.1", relay_port);
  }
  void TearDown() override {
    Set([this] { first_delivered_ = true; });
    relay_.stop();
    relay_thread_.join();
    owner_.stop();
    owner_thread_.join();
  }
  RelayRequest Make(const std::string& method, const std::string& path) {
    RelayRequest r;
    r.method = method;
    r.url = "http://127.0.0.1:" + std::to_string(owner_port_) + path;
    r.forwarded_by = "node-a";
    r.timeout_ms = 60000;
    return r;
  }
  template <typename Pred>
  bool WaitFor(Pred done) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, kPatience, done);
  }
  template <typename Change>
  void Set(Change change) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      change();
    }
    cv_.notify_all();
  }

  httplib::Server owner_;
  httplib::Server relay_;
  std::thread owner_thread_;
  std::thread relay_thread_;
  int owner_port_ = 0;
  std::unique_ptr<httplib::Client> caller_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool first_delivered_ = false;     // Guarded by mu_.
  bool owner_stream_ended_ = false;  // Guarded by mu_.
};

TEST_F(OwnerStreamRelayTest, APieceReachesTheCallerWhileTheOwnerStillWrites) {
  std::string got;
  bool first_alone = false;
  auto res = caller_->Get("/stream", [&](const char* data, size_t n) {
    got.append(data, n);
    if (got == "first") {
      first_alone = true;
      Set([this] { first_delivered_ = true; });
    }
    return true;
  });
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "application/connect+json");
  EXPECT_TRUE(first_alone) << "the relay held the first piece until the owner ended";
  EXPECT_EQ(got, "firstsecond");
}

TEST_F(OwnerStreamRelayTest, ACallerThatLeavesEndsTheOwnersStream) {
  size_t read = 0;
  auto res = caller_->Get("/endless", [&](const char*, size_t n) {
    read += n;
    return read < 4096;  // Then hangs up.
  });
  EXPECT_FALSE(res);
  EXPECT_TRUE(WaitFor([this] { return owner_stream_ended_; }))
      << "the owner still streams to a relay whose caller left";
}

TEST_F(OwnerStreamRelayTest, AMultipartBodyIsRebuiltPartForPart) {
  RelayRequest r = Make("POST", "/parts");
  r.content_type = "multipart/form-data; boundary=caller-boundary";
  const std::string binary("\0\x01\xff--caller-boundary\r\n", 22);
  r.parts = {{"file", "notes/a.txt", "text/plain", "hello"},
             {"file", "bin.dat", "application/octet-stream", binary}};
  auto answer = CurlStreamRelay(r);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(answer->status, 200);
  const json parts = json::parse(std::get<TextBody>(answer->body).text);
  EXPECT_EQ(parts, json::array({{"file", "notes/a.txt", "text/plain", Hex("hello")},
                                {"file", "bin.dat", "application/octet-stream", Hex(binary)}}));
}

TEST_F(OwnerStreamRelayTest, AWholeAnswerKeepsItsStatusTypeAndRelayedHeaders) {
  RelayRequest r = Make("POST", "/refuse");
  r.headers = {{"X-Access-Token", "tok-1"}};
  auto answer = CurlStreamRelay(r);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(answer->status, 401);
  const TextBody& body = std::get<TextBody>(answer->body);
  EXPECT_EQ(body.content_type, "application/json");
  EXPECT_EQ(body.text, R"({"token":"tok-1"})");
  std::vector<std::string> names;
  for (const auto& [name, value] : answer->headers) names.push_back(name);
  EXPECT_EQ(names, std::vector<std::string>{"WWW-Authenticate"});
}

TEST_F(OwnerStreamRelayTest, AnOwnerThatSendsNothingIsGivenUpOnAtTheFirstPieceBound) {
  RelayRequest r = Make("GET", "/silent");
  r.first_piece_timeout_ms = 300;
  auto answer = CurlStreamRelay(r);
  EXPECT_EQ(answer.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(answer.status().reason(), kReasonForwardFailed);
}

TEST_F(OwnerStreamRelayTest, AnOwnerThatCannotBeReachedIsUnreachable) {
  RelayRequest r = Make("GET", "/stream");
  r.url = "http://127.0.0.1:1/stream";
  auto answer = CurlStreamRelay(r);
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(answer.status().reason(), kReasonOwnerUnreachable);
}

}  // namespace
}  // namespace coderunner::api
