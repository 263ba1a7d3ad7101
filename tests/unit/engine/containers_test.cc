#include "coderunner/engine/containers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "unit/engine/fake_transport.h"

namespace coderunner::engine {
namespace {

using ::testing::HasSubstr;
using testutil::FakeTransport;
using testutil::LoadRecording;
using testutil::Recording;

constexpr std::chrono::milliseconds kTimeout{1234};
const std::vector<std::string> kEngines = {"docker", "podman"};

// "/containers/create?name=NAME" -> "NAME".
std::string NameFromCreatePath(const std::string& path) {
  return path.substr(path.find("name=") + 5);
}

// "/containers/ID/..." -> "ID".
std::string IdFromPath(const std::string& path) {
  std::string rest = path.substr(std::string("/containers/").size());
  return rest.substr(0, rest.find_first_of("/?"));
}

class ContainerClientTest : public ::testing::Test {
 protected:
  FakeTransport transport_;
  ContainerClient client_{transport_, kTimeout};
};

TEST_F(ContainerClientTest, CreateSendsNameQueryAndJsonBody) {
  transport_.Answer("POST", "/containers/create?name=coderunner-job-1", 201,
                    R"({"Id":"abc123","Warnings":[]})");
  nlohmann::json spec = {{"Image", "coderunner/python:3.11"},
                         {"Cmd", {"python3", "-c", "print(1)"}},
                         {"HostConfig", {{"NetworkMode", "none"}}}};
  auto id = client_.Create(spec, "coderunner-job-1");
  ASSERT_TRUE(id.ok()) << id.status().ToString();
  EXPECT_EQ(*id, "abc123");
  HttpRequest sent = transport_.last_request();
  EXPECT_EQ(sent.method, "POST");
  EXPECT_EQ(sent.path, "/containers/create?name=coderunner-job-1");
  EXPECT_EQ(nlohmann::json::parse(sent.body), spec);
  EXPECT_EQ(sent.timeout, kTimeout);
}

TEST_F(ContainerClientTest, CreateReturnsRecordedIdForBothEngines) {
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(engine, "container_create");
    auto id =
        client.Create(nlohmann::json::parse(r.request.body), NameFromCreatePath(r.request.path));
    ASSERT_TRUE(id.ok()) << id.status().ToString();
    EXPECT_EQ(*id, r.body["Id"].get<std::string>());
    EXPECT_EQ(id->size(), 64u);
    EXPECT_EQ(nlohmann::json::parse(t.last_request().body), nlohmann::json::parse(r.request.body));
  }
}

// Docker answers a name clash with 409; Podman 4.3 with 500 and
// "cause":"that name is already in use" (see the recordings).
TEST_F(ContainerClientTest, CreateMapsConflictToAlreadyExists) {
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(engine, "container_create_conflict");
    auto id =
        client.Create(nlohmann::json::parse(r.request.body), NameFromCreatePath(r.request.path));
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.status().code(), StatusCode::kAlreadyExists) << id.status().ToString();
    EXPECT_THAT(id.status().message(), HasSubstr("is already in use"));
  }
}

TEST_F(ContainerClientTest, CreateMapsMissingImageToNotFoundKeepingEngineMessage) {
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(engine, "container_create_missing_image");
    auto id =
        client.Create(nlohmann::json::parse(r.request.body), NameFromCreatePath(r.request.path));
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.status().code(), StatusCode::kNotFound);
    EXPECT_EQ(id.status().reason(), "engine_not_found");
    EXPECT_THAT(id.status().message(), HasSubstr(r.body["message"].get<std::string>()));
    EXPECT_THAT(id.status().message(), HasSubstr("coderunner/missing:0"));
  }
}

TEST_F(ContainerClientTest, CreateRejectsUnsafeNamesWithoutCallingTheEngine) {
  const std::vector<std::string> names = {
      "", "a/b", "a?b=c", "../etc", "a b", "a&name=x", "a%2fb", "a\nb", "é", std::string(129, 'a')};
  for (const auto& name : names) {
    SCOPED_TRACE(name);
    auto id = client_.Create(nlohmann::json::object(), name);
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.status().code(), StatusCode::kInvalidArgument);
  }
  EXPECT_TRUE(transport_.requests().empty());
}

TEST_F(ContainerClientTest, CreateWithBadAnswerIsInternal) {
  const std::vector<std::string> bodies = {"{}", R"({"Id":5})", "not json", ""};
  for (const auto& body : bodies) {
    SCOPED_TRACE(body);
    transport_.Answer("POST", "/containers/create?name=n", 201, body);
    auto id = client_.Create(nlohmann::json::object(), "n");
    ASSERT_FALSE(id.ok());
    EXPECT_EQ(id.status().code(), StatusCode::kInternal);
    EXPECT_EQ(id.status().reason(), "engine_bad_response");
  }
}

TEST_F(ContainerClientTest, StartTreats304AndRecorded204AsOk) {
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(engine, "container_start");
    EXPECT_TRUE(client.Start(IdFromPath(r.request.path)).ok());
  }
  transport_.Answer("POST", "/containers/c1/start", 304, "");
  EXPECT_TRUE(client_.Start("c1").ok());
  transport_.Answer("POST", "/containers/c2/start", 404, R"({"message":"No such container: c2"})");
  Status s = client_.Start("c2");
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("No such container: c2"));
}

TEST_F(ContainerClientTest, WaitReturnsRecordedExitCodeWithItsOwnTimeout) {
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(engine, "container_wait");
    auto code = client.Wait(IdFromPath(r.request.path), std::chrono::milliseconds(777));
    ASSERT_TRUE(code.ok()) << code.status().ToString();
    EXPECT_EQ(*code, 3);
    EXPECT_EQ(t.last_request().timeout, std::chrono::milliseconds(777));
  }
}

TEST_F(ContainerClientTest, WaitWithoutStatusCodeIsInternal) {
  transport_.Answer("POST", "/containers/c/wait", 200, R"({"Error":null})");
  auto code = client_.Wait("c", kTimeout);
  ASSERT_FALSE(code.ok());
  EXPECT_EQ(code.status().reason(), "engine_bad_response");
}

TEST_F(ContainerClientTest, InspectNormalizesExitedContainerForBothEngines) {
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(engine, "container_inspect_exited");
    std::string id = IdFromPath(r.request.path);
    auto st = client.Inspect(id);
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    EXPECT_EQ(st->id, id);
    EXPECT_EQ(st->image_id.rfind("sha256:", 0), 0u) << st->image_id;
    EXPECT_EQ(st->image_id.size(), 7u + 64u);
    EXPECT_EQ(st->status, "exited");
    EXPECT_FALSE(st->running);
    EXPECT_EQ(st->exit_code, 3);
    EXPECT_FALSE(st->oom_killed);
    EXPECT_EQ(st->labels.at("io.coderunner.managed"), "true");
    EXPECT_EQ(st->labels.at("io.coderunner.instance"), "rec");
    EXPECT_EQ(st->raw, r.body);
  }
}

TEST_F(ContainerClientTest, InspectReportsOomKill) {
  struct Case {
    const char* engine;
    bool oom_killed;  // Podman 4.3 reports false even for an OOM kill.
  };
  for (const Case& c : {Case{"docker", true}, Case{"podman", false}}) {
    SCOPED_TRACE(c.engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(c.engine, "container_inspect_oom");
    auto st = client.Inspect(IdFromPath(r.request.path));
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    EXPECT_EQ(st->exit_code, 137);
    EXPECT_EQ(st->oom_killed, c.oom_killed);
    EXPECT_EQ(st->status, "exited");
  }
}

TEST_F(ContainerClientTest, InspectAddsSha256PrefixToBareImageId) {
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    Recording r = LoadRecording(engine, "container_inspect_exited");
    std::string full = r.body["Image"].get<std::string>();
    ASSERT_EQ(full.rfind("sha256:", 0), 0u);
    nlohmann::json bare = r.body;
    bare["Image"] = full.substr(7);  // As Podman's compat API may answer.
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    t.Answer(r.request.method, r.request.path, 200, bare.dump());
    auto st = client.Inspect(IdFromPath(r.request.path));
    ASSERT_TRUE(st.ok()) << st.status().ToString();
    EXPECT_EQ(st->image_id, full);
  }
}

TEST_F(ContainerClientTest, InspectOfMissingContainerIsNotFound) {
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(engine, "container_inspect_missing");
    auto st = client.Inspect(IdFromPath(r.request.path));
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.status().code(), StatusCode::kNotFound);
  }
}

TEST_F(ContainerClientTest, InspectWithMistypedFieldsIsInternalNotACrash) {
  const std::vector<std::string> bodies = {
      R"({"Id":"c","State":{"ExitCode":"three"}})",
      R"({"Id":"c","State":{"Running":"yes"}})",
      R"({"Id":7})",
      R"({"Id":"c","Image":["x"]})",
      "not json",
  };
  for (const auto& body : bodies) {
    SCOPED_TRACE(body);
    transport_.Answer("GET", "/containers/c/json", 200, body);
    auto st = client_.Inspect("c");
    ASSERT_FALSE(st.ok());
    EXPECT_EQ(st.status().code(), StatusCode::kInternal);
    EXPECT_EQ(st.status().reason(), "engine_bad_response");
  }
}

TEST_F(ContainerClientTest, InspectOfMinimalBodyUsesDefaults) {
  transport_.Answer("GET", "/containers/c/json", 200, R"({"Id":"c"})");
  auto st = client_.Inspect("c");
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st->image_id, "");
  EXPECT_EQ(st->exit_code, 0);
  EXPECT_FALSE(st->running);
  EXPECT_TRUE(st->labels.empty());
}

TEST_F(ContainerClientTest, OciRuntimeIsWhatTheEngineReallyUsesNotWhatWasAsked) {
  // Both recorded containers asked for runsc. Docker honours it and says so
  // in the compat inspect; Podman 4.3 says "oci" there, and its libpod
  // inspect shows it ignored the request.
  struct Case {
    const char* engine;
    const char* want;
    size_t requests;  // Docker needs no libpod call.
  };
  for (const Case& c : {Case{"docker", "runsc", 1}, Case{"podman", "runc", 2}}) {
    SCOPED_TRACE(c.engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(c.engine, "container_inspect_runtime");
    t.Replay(c.engine, "container_inspect_runtime_libpod");
    auto runtime = client.OciRuntime(IdFromPath(r.request.path));
    ASSERT_TRUE(runtime.ok()) << runtime.status().ToString();
    EXPECT_EQ(*runtime, c.want);
    EXPECT_EQ(t.requests().size(), c.requests);
  }
}

TEST_F(ContainerClientTest, OciRuntimeThatNoAnswerNamesIsAnError) {
  struct Case {
    const char* name;
    std::string compat;  // Body of GET /containers/c/json (200).
    long libpod_status;  // 0 = no libpod answer scripted.
    std::string libpod;
    StatusCode code;
  };
  const std::vector<Case> cases = {
      {"podman placeholder, libpod without the field", R"({"HostConfig":{"Runtime":"oci"}})", 200,
       R"({"Id":"c"})", StatusCode::kInternal},
      {"no HostConfig, libpod missing (Docker)", R"({"Id":"c"})", 404,
       R"({"message":"page not found"})", StatusCode::kNotFound},
      {"mistyped runtime, libpod mistyped", R"({"HostConfig":{"Runtime":7}})", 200,
       R"({"OCIRuntime":["runc"]})", StatusCode::kInternal},
      {"empty runtime, libpod empty", R"({"HostConfig":{"Runtime":""}})", 200,
       R"({"OCIRuntime":""})", StatusCode::kInternal},
      {"HostConfig not an object", R"({"HostConfig":"x"})", 200, "not json", StatusCode::kInternal},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    t.Answer("GET", "/containers/c/json", 200, c.compat);
    if (c.libpod_status != 0)
      t.Answer("GET", "/libpod/containers/c/json", c.libpod_status, c.libpod);
    auto runtime = client.OciRuntime("c");
    ASSERT_FALSE(runtime.ok()) << *runtime;
    EXPECT_EQ(runtime.status().code(), c.code) << runtime.status().ToString();
  }
}

TEST_F(ContainerClientTest, OciRuntimeOfMissingContainerIsNotFound) {
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(engine, "container_inspect_missing");
    auto runtime = client.OciRuntime(IdFromPath(r.request.path));
    ASSERT_FALSE(runtime.ok());
    EXPECT_EQ(runtime.status().code(), StatusCode::kNotFound);
  }
}

TEST_F(ContainerClientTest, KillOfStoppedContainerIsOkForBothEngines) {
  // Docker: 409 "is not running". Podman: 500 "can only kill running containers".
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(engine, "container_kill_stopped");
    EXPECT_GE(r.response.status, 400);
    Status s = client.Kill(IdFromPath(r.request.path));
    EXPECT_TRUE(s.ok()) << s.ToString();
    EXPECT_EQ(t.last_request().path, r.request.path);
  }
}

TEST_F(ContainerClientTest, KillSendsSignalAndReportsOtherFailures) {
  transport_.Answer("POST", "/containers/c/kill?signal=TERM", 204, "");
  EXPECT_TRUE(client_.Kill("c", "TERM").ok());
  transport_.Answer("POST", "/containers/c/kill?signal=KILL", 500,
                    R"({"message":"permission denied"})");
  Status s = client_.Kill("c");
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("permission denied"));
  transport_.Answer("POST", "/containers/gone/kill?signal=KILL", 404,
                    R"({"message":"No such container: gone"})");
  EXPECT_EQ(client_.Kill("gone").code(), StatusCode::kNotFound);
}

TEST_F(ContainerClientTest, RemoveOfMissingContainerIsOkForBothEngines) {
  for (const auto& engine : kEngines) {
    for (const char* name : {"container_remove_missing", "container_remove"}) {
      SCOPED_TRACE(engine + "/" + name);
      FakeTransport t;
      ContainerClient client(t, kTimeout);
      Recording r = t.Replay(engine, name);
      Status s = client.Remove(IdFromPath(r.request.path));
      EXPECT_TRUE(s.ok()) << s.ToString();
      EXPECT_EQ(t.last_request().method, "DELETE");
      EXPECT_THAT(t.last_request().path, ::testing::EndsWith("?force=1&v=1"));
    }
  }
}

TEST_F(ContainerClientTest, RemoveReportsEngineFailure) {
  transport_.Answer("DELETE", "/containers/c?force=1&v=1", 500, R"({"message":"driver failed"})");
  Status s = client_.Remove("c");
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_THAT(s.message(), HasSubstr("driver failed"));
}

TEST_F(ContainerClientTest, ListUrlEncodesTheLabelFilter) {
  transport_.Answer("GET",
                    "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22io.coderunner.instance%"
                    "3Da%20b%26c%22%2C%22io.coderunner.managed%22%5D%7D",
                    200, "[]");
  auto rows = client_.List({{"io.coderunner.managed", ""}, {"io.coderunner.instance", "a b&c"}});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_TRUE(rows->empty());
  // Nothing of the JSON filter is left raw in the query string.
  std::string path = transport_.last_request().path;
  std::string query = path.substr(path.find("filters=") + 8);
  EXPECT_EQ(query.find_first_of("{}[]\" =&"), std::string::npos) << query;
}

TEST_F(ContainerClientTest, ListParsesRecordedRowsForBothEngines) {
  for (const auto& engine : kEngines) {
    SCOPED_TRACE(engine);
    FakeTransport t;
    ContainerClient client(t, kTimeout);
    Recording r = t.Replay(engine, "container_list");
    auto rows = client.List({{"io.coderunner.managed", "true"}, {"io.coderunner.instance", "rec"}});
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    // The client built exactly the path the recording was made with.
    EXPECT_EQ(t.last_request().path, r.request.path);
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ((*rows)[0].id.size(), 64u);
    EXPECT_EQ((*rows)[0].state, "exited");
    EXPECT_EQ((*rows)[0].labels.at("io.coderunner.job"), "job-rec");
  }
}

TEST_F(ContainerClientTest, ListSkipsRowsWithoutId) {
  transport_.Answer("GET", "/containers/json?all=1&filters=%7B%22label%22%3A%5B%22k%22%5D%7D", 200,
                    R"([{"Id":"a","State":"running"},{"State":"exited"},5,{"Id":"b"}])");
  auto rows = client_.List({{"k", ""}});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].id, "a");
  EXPECT_EQ((*rows)[1].id, "b");
}

TEST_F(ContainerClientTest, AttachStreamsBodyAfterSignallingAttached) {
  const std::string path = "/containers/c/attach?stream=1&stdout=1&stderr=1";
  transport_.Answer("POST", path, 200, std::string("0123456789"));
  transport_.set_stream_chunk_size(3);
  std::string got;
  int attached = 0;
  Status s = client_.Attach(
      "c",
      [&](std::string_view chunk) {
        EXPECT_EQ(attached, 1);  // on_attached ran before any byte.
        got.append(chunk);
        return true;
      },
      [&] { ++attached; }, std::chrono::milliseconds(5000));
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(got, "0123456789");
  EXPECT_EQ(attached, 1);
  EXPECT_EQ(transport_.last_request().timeout, std::chrono::milliseconds(5000));
}

TEST_F(ContainerClientTest, AttachErrorStatusKeepsBodyOutOfTheSink) {
  transport_.Answer("POST", "/containers/c/attach?stream=1&stdout=1&stderr=1", 404,
                    R"({"message":"No such container: c"})");
  bool sink_called = false;
  bool attached = false;
  Status s = client_.Attach(
      "c",
      [&](std::string_view) {
        sink_called = true;
        return true;
      },
      [&] { attached = true; }, kTimeout);
  EXPECT_EQ(s.code(), StatusCode::kNotFound);
  EXPECT_THAT(s.message(), HasSubstr("No such container: c"));
  EXPECT_FALSE(sink_called);
  EXPECT_FALSE(attached);
}

TEST_F(ContainerClientTest, AttachAbortedBySinkIsUnavailable) {
  transport_.Answer("POST", "/containers/c/attach?stream=1&stdout=1&stderr=1", 200, "data");
  Status s = client_.Attach(
      "c", [](std::string_view) { return false; }, nullptr, kTimeout);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable);
  EXPECT_THAT(s.message(), HasSubstr("attach container"));
}

TEST_F(ContainerClientTest, TransportErrorIsPropagatedAsUnavailableByEveryCall) {
  transport_.FailEverything(UnavailableError("connect: no such file", "engine_unavailable"));
  std::vector<std::pair<const char*, Status>> results = {
      {"create", client_.Create(nlohmann::json::object(), "n").status()},
      {"start", client_.Start("c")},
      {"attach", client_.Attach(
                     "c", [](std::string_view) { return true; }, nullptr, kTimeout)},
      {"wait", client_.Wait("c", kTimeout).status()},
      {"inspect", client_.Inspect("c").status()},
      {"oci runtime", client_.OciRuntime("c").status()},
      {"kill", client_.Kill("c")},
      {"remove", client_.Remove("c")},
      {"list", client_.List({}).status()},
  };
  for (const auto& [name, s] : results) {
    SCOPED_TRACE(name);
    EXPECT_EQ(s.code(), StatusCode::kUnavailable);
    EXPECT_THAT(s.message(), HasSubstr("connect: no such file"));
  }
  EXPECT_EQ(transport_.requests().size(), results.size());
}

TEST_F(ContainerClientTest, ScriptedTransportErrorOnOnePath) {
  transport_.Fail("GET", "/containers/c/json", DeadlineExceededError("timed out"));
  EXPECT_EQ(client_.Inspect("c").status().code(), StatusCode::kDeadlineExceeded);
}

TEST_F(ContainerClientTest, EveryCallRejectsABadIdWithoutCallingTheEngine) {
  const std::string bad = "../../images/x";
  EXPECT_EQ(client_.Start(bad).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client_.Wait(bad, kTimeout).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client_.Inspect(bad).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client_.OciRuntime(bad).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client_.Kill(bad).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client_.Remove(bad).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(client_
                .Attach(
                    bad, [](std::string_view) { return true; }, nullptr, kTimeout)
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(transport_.requests().empty());
}

}  // namespace
}  // namespace coderunner::engine
