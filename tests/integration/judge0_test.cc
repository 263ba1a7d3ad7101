// Judge0 CE's submissions API under /judge0, against the requests and
// answers of Judge0's own documentation (docs/api/submissions/*.md and
// docs/api/statuses_and_languages/*.md of judge0/judge0): the fields, the
// status ids, base64, wait, batches, 422's field errors and the key in
// X-Auth-Token; and each status from a real run.
#include <httplib.h>

#include <string>
#include <thread>

#include "coderunner/common/base64.h"
#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr const char* kKey = "judge0-harness-key";

// The C program of Judge0's examples (language 50 here: Judge0 CE's C).
constexpr const char* kHelloC =
    "#include <stdio.h>\n\nint main(void) {\n  char name[10];\n  scanf(\"%s\", name);\n"
    "  printf(\"hello, %s\\n\", name);\n  return 0;\n}";

class Judge0Test : public EngineTest {
 protected:
  std::string ExtraConfig() const override { return ApiKeysYaml({{"acme", "pro", kKey}}); }

  // A call as Judge0's clients make it: the key in X-Auth-Token.
  HttpAnswer J0(const std::string& method, const std::string& path, const std::string& body = "",
                const char* key = kKey) {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(120, 0);
    httplib::Headers headers;
    if (key != nullptr) headers.emplace("X-Auth-Token", key);
    auto r =
        method == "GET" ? c.Get(path, headers) : c.Post(path, headers, body, "application/json");
    HttpAnswer a;
    if (!r) return a;
    a.status = r->status;
    a.body = r->body;
    a.json = json::parse(r->body, nullptr, false);
    return a;
  }

  // POST ?wait=true, expecting 201; the submission.
  json Wait(const json& submission, const std::string& query = "") {
    HttpAnswer a = J0("POST", "/judge0/submissions?wait=true" + query, submission.dump());
    EXPECT_EQ(a.status, 201) << a.body;
    return a.json;
  }
};

TEST_F(Judge0Test, TheDocumentedWaitExampleIsAcceptedWithTheDefaultFields) {
  json r = Wait({{"source_code", kHelloC},
                 {"language_id", "50"},
                 {"stdin", "Judge0"},
                 {"expected_output", "hello, Judge0"}});
  EXPECT_EQ(r["status"], (json{{"id", 3}, {"description", "Accepted"}})) << r.dump();
  EXPECT_EQ(r["stdout"], "hello, Judge0\n");
  EXPECT_EQ(r["stderr"], nullptr);
  EXPECT_EQ(r["compile_output"], nullptr);
  EXPECT_EQ(r["message"], nullptr);
  EXPECT_TRUE(r["time"].is_string()) << r.dump();
  EXPECT_TRUE(r["memory"].is_number_integer()) << r.dump();
  EXPECT_TRUE(r["token"].is_string());
  // Judge0's default: these eight, nothing else.
  EXPECT_EQ(r.size(), 8u) << r.dump();
}

TEST_F(Judge0Test, RefusedSubmissionsAre422NamingTheField) {
  struct Row {
    json submission;
    json want;
  };
  const Row rows[] = {
      {{{"source_code", kHelloC}}, {{"language_id", {"can't be blank"}}}},
      {{{"source_code", kHelloC}, {"language_id", 150000}, {"stdin", "world"}},
       {{"language_id", {"language with id 150000 doesn't exist"}}}},
      {{{"source_code", kHelloC}, {"language_id", 50}, {"enable_network", true}},
       {{"enable_network", {"is not available on this service"}}}},
  };
  for (const Row& row : rows) {
    HttpAnswer a = J0("POST", "/judge0/submissions", row.submission.dump());
    EXPECT_EQ(a.status, 422) << a.body;
    EXPECT_EQ(a.json, row.want) << a.body;
  }
  HttpAnswer anonymous = J0("POST", "/judge0/submissions", "{}", nullptr);
  EXPECT_EQ(anonymous.status, 401) << anonymous.body;
  EXPECT_TRUE(anonymous.json.contains("error")) << anonymous.body;
}

TEST_F(Judge0Test, Base64GoesBothWays) {
  json r =
      Wait({{"source_code", Base64Encode(kHelloC)}, {"language_id", 50}, {"stdin", "SnVkZ2Uw"}},
           "&base64_encoded=true");
  EXPECT_EQ(r["stdout"], "aGVsbG8sIEp1ZGdlMAo=") << r.dump();
  EXPECT_EQ(r["status"]["id"], 3);
}

TEST_F(Judge0Test, ATokenIsFollowedUntilTheSubmissionIsDoneAndBatchesToo) {
  json submission = {
      {"source_code", "print(int(input()) * 2)"}, {"language_id", 71}, {"stdin", "21"}};
  HttpAnswer created = J0("POST", "/judge0/submissions", submission.dump());
  ASSERT_EQ(created.status, 201) << created.body;
  ASSERT_EQ(created.json.size(), 1u) << created.body;
  const std::string token = created.json["token"];
  json got;
  for (int i = 0; i < 300; ++i) {
    got = J0("GET", "/judge0/submissions/" + token + "?fields=*").json;
    if (got["status"]["id"] > 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(got["status"]["id"], 3) << got.dump();
  EXPECT_EQ(got["stdout"], "42\n");
  EXPECT_EQ(got["language_id"], 71);
  EXPECT_EQ(got["source_code"], "print(int(input()) * 2)");
  EXPECT_EQ(got["exit_code"], 0);
  EXPECT_TRUE(got["finished_at"].is_string()) << got.dump();

  json other = submission;
  other["stdin"] = "5";
  HttpAnswer batch = J0("POST", "/judge0/submissions/batch",
                        json{{"submissions", {submission, other, {{"language_id", 71}}}}}.dump());
  ASSERT_EQ(batch.status, 201) << batch.body;
  ASSERT_EQ(batch.json.size(), 3u);
  EXPECT_EQ(batch.json[2], (json{{"source_code", {"can't be blank"}}})) << batch.body;
  const std::string tokens =
      batch.json[0]["token"].get<std::string>() + "," + batch.json[1]["token"].get<std::string>();
  json list;
  for (int i = 0; i < 300; ++i) {
    list =
        J0("GET", "/judge0/submissions/batch?tokens=" + tokens + "&fields=stdout,status_id").json;
    if (list["submissions"][0]["status_id"] > 2 && list["submissions"][1]["status_id"] > 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(list["submissions"][0], (json{{"stdout", "42\n"}, {"status_id", 3}})) << list.dump();
  EXPECT_EQ(list["submissions"][1], (json{{"stdout", "10\n"}, {"status_id", 3}})) << list.dump();
}

TEST_F(Judge0Test, EachWayARunEndsHasItsJudge0Status) {
  struct Row {
    const char* name;
    json submission;
    int status;
  };
  const Row rows[] = {
      {"wrong answer",
       {{"source_code", "print(1)"}, {"language_id", 71}, {"expected_output", "2"}},
       4},
      {"time limit",
       {{"source_code", "while True: pass"},
        {"language_id", 71},
        {"cpu_time_limit", 1},
        {"wall_time_limit", 2}},
       5},
      {"compilation error", {{"source_code", "int main( {"}, {"language_id", 54}}, 6},
      {"SIGSEGV",
       {{"source_code", "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)"},
        {"language_id", 71}},
       7},
      {"NZEC", {{"source_code", "exit 3"}, {"language_id", 46}}, 11},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    json r = Wait(row.submission, "&fields=*");
    EXPECT_EQ(r["status"]["id"], row.status) << r.dump();
    if (row.status == 6) {
      EXPECT_TRUE(r["compile_output"].is_string()) << r.dump();
    } else if (row.status == 7) {
      EXPECT_EQ(r["exit_signal"], 11) << r.dump();
    } else if (row.status == 11) {
      EXPECT_EQ(r["exit_code"], 3) << r.dump();
    }
  }
}

TEST_F(Judge0Test, LanguagesAndStatusesAreJudge0s) {
  json languages = J0("GET", "/judge0/languages").json;
  std::set<int> ids;
  for (const auto& l : languages) ids.insert(l["id"].get<int>());
  for (int id : {46, 50, 54, 60, 62, 63, 71, 73, 74}) EXPECT_TRUE(ids.count(id)) << id;
  json cpp = J0("GET", "/judge0/languages/54").json;
  EXPECT_EQ(cpp["source_file"], "main.cpp") << cpp.dump();
  EXPECT_TRUE(cpp["compile_cmd"].is_string()) << cpp.dump();
  EXPECT_EQ(J0("GET", "/judge0/languages/4").status, 404);
  json statuses = J0("GET", "/judge0/statuses").json;
  ASSERT_EQ(statuses.size(), 14u);
  EXPECT_EQ(statuses[4], (json{{"id", 5}, {"description", "Time Limit Exceeded"}}));
}

}  // namespace
}  // namespace coderunner::testing
