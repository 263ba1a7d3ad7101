// What a finished job's stored request keeps: every string of the request
// redacted like output, base64 files by their bytes, the callback URL's
// user info and query; a redacted envelope is marked so replays refuse it.
#include "coderunner/jobs/request_redaction.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "coderunner/common/base64.h"

namespace coderunner::jobs {
namespace {

using nlohmann::json;

constexpr const char* kKey = "sk-abcdefghijklmnopqrstuvwx";

json Envelope(const json& request) { return {{"request", request}, {"tier", "pro"}}; }

TEST(RequestRedactionTest, EveryStringOfTheRequestIsRedacted) {
  struct Case {
    const char* name;
    json request;
    std::string must_not;  // No longer anywhere in the stored form.
  };
  const std::vector<Case> cases = {
      {"code", {{"code", std::string("print('") + kKey + "')"}}, kKey},
      {"stdin",
       {{"code", "x"}, {"stdin", std::string("token=") + "hunter2hunter2"}},
       "hunter2hunter2"},
      {"args", {{"code", "x"}, {"args", {"--password=swordfish1"}}}, "swordfish1"},
      {"utf8 file",
       {{"code", "x"}, {"files", {{{"path", "k.txt"}, {"content", std::string(kKey)}}}}},
       kKey},
      {"base64 file",
       {{"code", "x"},
        {"files", {{{"path", "k.bin"}, {"content", Base64Encode(kKey)}, {"encoding", "base64"}}}}},
       Base64Encode(kKey)},
      {"nested inputs", {{"code", "x"}, {"inputs", {{"a", {{"b", {std::string(kKey)}}}}}}}, kKey},
      {"intent text", {{"intent", std::string("use key ") + kKey}}, kKey},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string stored = Envelope(c.request).dump();
    std::string url;
    RedactStoredRequest(stored, url);
    EXPECT_EQ(stored.find(c.must_not), std::string::npos) << stored;
    EXPECT_TRUE(StoredRequestWasRedacted(stored)) << stored;
    json after = json::parse(stored);
    EXPECT_EQ(after["tier"], "pro");  // The envelope's own fields stay.
  }
}

TEST(RequestRedactionTest, ANothingSecretRequestIsKeptAsItWas) {
  std::string stored = Envelope({{"code", "print(6*7)"}, {"stdin", "hello"}}).dump();
  const std::string before = stored;
  std::string url = "https://hooks.example.com/done";
  RedactStoredRequest(stored, url);
  EXPECT_EQ(stored, before);
  EXPECT_FALSE(StoredRequestWasRedacted(stored));
  EXPECT_EQ(url, "https://hooks.example.com/done");
}

TEST(RequestRedactionTest, CallbackUrlsLoseUserInfoAndQuery) {
  struct Case {
    std::string in, out;
  };
  for (const Case& c : std::vector<Case>{
           {"https://h.example.com/x?sig=abc123&t=1", "https://h.example.com/x?[REDACTED]"},
           {"https://user:pw@h.example.com:8443/x", "https://[REDACTED]@h.example.com:8443/x"},
           {"http://h.example.com/x#frag", "http://h.example.com/x#[REDACTED]"},
           {"https://h.example.com", "https://h.example.com"},
       }) {
    SCOPED_TRACE(c.in);
    std::string stored = Envelope({{"code", "x"}}).dump();
    std::string url = c.in;
    RedactStoredRequest(stored, url);
    EXPECT_EQ(url, c.out);
  }
}

TEST(RequestRedactionTest, CorruptEnvelopesAreNotKept) {
  for (std::string stored : {std::string("{not json"), std::string("[1,2]"), std::string("")}) {
    SCOPED_TRACE(stored);
    std::string url;
    RedactStoredRequest(stored, url);
    EXPECT_TRUE(StoredRequestWasRedacted(stored)) << stored;
  }
  EXPECT_FALSE(StoredRequestWasRedacted(R"({"redacted":"yes"})"));  // Not a bool: not ours.
}

}  // namespace
}  // namespace coderunner::jobs
