// Secrets at rest: once a job has finished, nothing secret-looking of its
// request (code, stdin, args, files) is left in the bytes of jobs.db or its
// WAL on disk, the files are root's alone (0600), and a replay of the
// redacted request is refused rather than run changed.
#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

// Looks like an OpenAI key to the redactor; unique to this test.
constexpr const char* kKey = "sk-proj9secretatrest0123456789";

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class SecretsAtRestTest : public EngineTest {
 protected:
  // Polls the job until it is terminal; its record.
  json WaitTerminal(const std::string& id) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (std::chrono::steady_clock::now() < deadline) {
      HttpAnswer w = server_->Get("/v1/jobs/" + id + "/wait?timeout_s=20");
      if (w.status == 200) return w.json;
    }
    ADD_FAILURE() << "job " << id << " did not finish";
    return json::object();
  }
};

TEST_F(SecretsAtRestTest, AFinishedJobLeavesNoSecretOfItsRequestOnDisk) {
  json body = {{"language", "python"},
               {"code", std::string("KEY = '") + kKey + "'\nprint(len(KEY))"},
               {"stdin", std::string("api_key=") + kKey},
               {"args", {std::string("--token=") + kKey}},
               {"files", {{{"path", "key.txt"}, {"content", std::string(kKey)}}}},
               {"cache", false}};
  HttpAnswer a = server_->Post("/v1/jobs", body.dump());
  ASSERT_EQ(a.status, 202) << a.body;
  const std::string id = a.json.value("id", "");
  json rec = WaitTerminal(id);
  ASSERT_EQ(rec.value("status", ""), "succeeded") << rec.dump();
  EXPECT_EQ(rec["result"]["stdout"], std::to_string(std::string(kKey).size()) + "\n");

  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::string path = server_->data_dir() + "/jobs.db" + suffix;
    SCOPED_TRACE(path);
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) continue;  // No WAL right now.
    EXPECT_EQ(st.st_mode & 07777, 0600u);
    EXPECT_EQ(FileBytes(path).find(kKey), std::string::npos) << "the key is on disk";
  }
  HttpAnswer replay = server_->Post("/v1/jobs/" + id + "/replay", "");
  EXPECT_EQ(replay.status, 422) << replay.body;
  EXPECT_EQ(replay.json["error"]["code"], "request_redacted") << replay.body;
}

TEST_F(SecretsAtRestTest, ANothingSecretRequestIsKeptAndReplays) {
  json body = {{"language", "python"}, {"code", "print(6*7)"}, {"cache", false}};
  HttpAnswer a = server_->Post("/v1/jobs", body.dump());
  ASSERT_EQ(a.status, 202) << a.body;
  const std::string id = a.json.value("id", "");
  ASSERT_EQ(WaitTerminal(id).value("status", ""), "succeeded");
  HttpAnswer replay = server_->Post("/v1/jobs/" + id + "/replay", "");
  EXPECT_EQ(replay.status, 202) << replay.body;
  if (replay.status == 202) WaitTerminal(replay.json.value("id", ""));
}

}  // namespace
}  // namespace coderunner::testing
