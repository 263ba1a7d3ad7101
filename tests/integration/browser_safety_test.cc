// What a browser gets from the API: every answer's safety headers, downloads
// that never run as a page of this origin, and GET /v1/info.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using nlohmann::json;

constexpr const char* kApiCsp = "default-src 'none'; frame-ancestors 'none'";
constexpr const char* kDownloadCsp = "default-src 'none'; sandbox";

// The headers every answer carries; `csp` is the one its route wants.
void ExpectSafetyHeaders(const HttpAnswer& a, const std::string& csp) {
  EXPECT_EQ(a.headers.count("content-security-policy"), 1u);
  EXPECT_EQ(a.headers.at("content-security-policy"), csp);
  EXPECT_EQ(a.headers.at("x-content-type-options"), "nosniff");
  EXPECT_EQ(a.headers.at("x-frame-options"), "DENY");
  EXPECT_EQ(a.headers.at("referrer-policy"), "no-referrer");
}

// GET `path` over a plain socket, the answer's header lines as sent:
// httplib's client percent-decodes header values, which would hide what a
// browser sees. Names lower-cased; the body is left out.
std::multimap<std::string, std::string> RawHeaders(int port, const std::string& path) {
  std::multimap<std::string, std::string> out;
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    ADD_FAILURE() << "cannot connect to port " << port;
    if (fd >= 0) close(fd);
    return out;
  }
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  EXPECT_EQ(send(fd, req.data(), req.size(), MSG_NOSIGNAL), static_cast<ssize_t>(req.size()));
  std::string got;
  char buf[4096];
  ssize_t n;
  while (got.find("\r\n\r\n") == std::string::npos && (n = recv(fd, buf, sizeof(buf), 0)) > 0) {
    got.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  got = got.substr(0, got.find("\r\n\r\n") + 2);
  size_t at = got.find("\r\n");  // After the status line.
  while (at != std::string::npos && at + 2 < got.size()) {
    size_t end = got.find("\r\n", at + 2);
    std::string line = got.substr(at + 2, end - at - 2);
    size_t colon = line.find(':');
    if (colon != std::string::npos) {
      std::string name = line.substr(0, colon);
      std::transform(name.begin(), name.end(), name.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      out.emplace(name, line.substr(line.find_first_not_of(' ', colon + 1)));
    }
    at = end;
  }
  return out;
}

class BrowserSafetyTest : public EngineTest {
 protected:
  // GET `path` (percent-encoded) answers `body` as a download named by
  // `disposition`, with the download CSP, each header once as sent.
  void ExpectDownload(const std::string& path, const std::string& disposition,
                      const std::string& body) {
    HttpAnswer a = server_->Get(path);
    ASSERT_EQ(a.status, 200) << a.body.substr(0, 500);
    EXPECT_EQ(a.body, body);
    ExpectSafetyHeaders(a, kDownloadCsp);
    auto raw = RawHeaders(server_->port(), path);
    for (const char* name : {"content-type", "content-disposition", "content-security-policy",
                             "x-content-type-options"}) {
      EXPECT_EQ(raw.count(name), 1u) << name;
    }
    if (raw.count("content-disposition") != 1) return;
    EXPECT_EQ(raw.find("content-type")->second, "application/octet-stream");
    EXPECT_EQ(raw.find("content-disposition")->second, disposition);
    EXPECT_EQ(raw.find("content-security-policy")->second, kDownloadCsp);
  }
};

TEST_F(BrowserSafetyTest, EveryAnswerCarriesTheSafetyHeaders) {
  json r = RunUncached("python", "print('hi')");
  ASSERT_EQ(r["status"], "succeeded") << r.dump();
  std::string id = r["id"];
  struct Case {
    const char* name;
    std::string path;
    int status;
    std::string content_type;
  };
  const Case cases[] = {
      {"a JSON answer", "/v1/jobs/" + id, 200, "application/json"},
      {"a key-less JSON answer", "/healthz", 200, "application/json"},
      {"an unknown route", "/v1/no-such-route", 404, "application/json"},
      {"an unknown job", "/v1/jobs/nope", 404, "application/json"},
      {"an SSE stream (of a finished job: ends at once)", "/v1/jobs/" + id + "/events", 200,
       "text/event-stream"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    HttpAnswer a = server_->Get(c.path);
    ASSERT_EQ(a.status, c.status) << a.body.substr(0, 500);
    EXPECT_EQ(a.headers["content-type"], c.content_type);
    ExpectSafetyHeaders(a, kApiCsp);
  }
}

TEST_F(BrowserSafetyTest, ArtifactsAreAttachmentsThatNeverRun) {
  json r = RunUncached("python",
                       "open('/output/<img src=x onerror=alert(1)>.html','w')"
                       ".write('<script>alert(1)</script>')\n"
                       "open('/output/x.svg','w').write("
                       "'<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>')\n");
  ASSERT_EQ(r["status"], "succeeded") << r.dump();
  std::string id = r["id"];
  struct Case {
    const char* name;
    std::string url_path;  // As sent (percent-encoded).
    std::string disposition;
    std::string body;
  };
  const Case cases[] = {
      {"markup in the name", "%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E.html",
       "attachment; filename=\"_img_src_x_onerror_alert_1__.html\"; "
       "filename*=UTF-8''%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.html",
       "<script>alert(1)</script>"},
      {"an SVG", "x.svg", "attachment; filename=\"x.svg\"; filename*=UTF-8''x.svg",
       "<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"/>"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    ExpectDownload("/v1/jobs/" + id + "/artifacts/" + c.url_path, c.disposition, c.body);
  }
}

TEST_F(BrowserSafetyTest, SandboxAndVolumeFilesAreDownloadsToo) {
  HttpAnswer sbx = server_->Post("/v1/sandboxes", R"({"language":"python"})");
  ASSERT_EQ(sbx.status, 201) << sbx.body;
  std::string sandbox = sbx.json["id"];
  HttpAnswer ran =
      server_->Post("/v1/sandboxes/" + sandbox + "/execute",
                    json{{"code", "open('/output/a\"b;c.html','w').write('<b>x</b>')"}}.dump());
  EXPECT_EQ(ran.json["status"], "succeeded") << ran.body;
  ExpectDownload("/v1/sandboxes/" + sandbox + "/files/a%22b%3Bc.html",
                 "attachment; filename=\"a_b_c.html\"; filename*=UTF-8''a%22b%3Bc.html",
                 "<b>x</b>");
  EXPECT_EQ(server_->Delete("/v1/sandboxes/" + sandbox).status, 200);
  std::error_code ec;
  std::filesystem::remove(server_->workspace_dir() + "/sandboxes", ec);

  HttpAnswer vol = server_->Post("/v1/volumes", R"({"size_bytes":1048576})");
  ASSERT_EQ(vol.status, 201) << vol.body;
  std::string volume = vol.json["id"];
  json r = RunUncached("python", "open('/output/v.svg','w').write('<svg onload=\"alert(1)\"/>')",
                       {{"volume_id", volume}});
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  ExpectDownload("/v1/volumes/" + volume + "/files/v.svg",
                 "attachment; filename=\"v.svg\"; filename*=UTF-8''v.svg",
                 "<svg onload=\"alert(1)\"/>");
  EXPECT_EQ(server_->Delete("/v1/volumes/" + volume).status, 200);
}

TEST_F(BrowserSafetyTest, InfoWithoutKeysOrModel) {
  HttpAnswer a = server_->Get("/v1/info");
  ASSERT_EQ(a.status, 200) << a.body;
  ExpectSafetyHeaders(a, kApiCsp);
  EXPECT_EQ(a.json["auth"], json({{"mode", "none"}}));
  EXPECT_EQ(a.json["llm"],
            json({{"configured", false},
                  {"config_keys", {"llm.base_url", "llm.model", "llm.api_key_env"}}}));
  EXPECT_EQ(a.json["runtime"], "sandboxed");
  EXPECT_EQ(a.json["features"],
            json({{"sandboxes", true}, {"volumes", true}, {"mcp", true}, {"e2b", true}}));
  // limits.default is what a job that asks for nothing runs under, in the
  // same shape as its record's.
  json r = RunUncached("python", "print(1)");
  HttpAnswer job = server_->Get("/v1/jobs/" + r["id"].get<std::string>());
  ASSERT_EQ(job.status, 200) << job.body;
  EXPECT_EQ(a.json["limits"]["default"], job.json["limits"]);
  EXPECT_EQ(a.json["limits"]["max"].size(), job.json["limits"].size());
}

constexpr const char* kAcmeKey = "acme-info-key-0123456789";

class InfoWithKeysAndModelTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    // Never called: only configured.
    return "llm: {base_url: \"http://127.0.0.1:9/secret-path/v1\", model: secret-model-name}\n" +
           ApiKeysYaml({{"acme", "pro", kAcmeKey}});
  }
};

TEST_F(InfoWithKeysAndModelTest, NeedsNoKeyAndNamesNoSecret) {
  HttpAnswer a = server_->Get("/v1/info");
  ASSERT_EQ(a.status, 200) << a.body;
  ExpectSafetyHeaders(a, kApiCsp);
  EXPECT_EQ(a.json["auth"], json({{"mode", "api_keys"}}));
  EXPECT_EQ(a.json["llm"]["configured"], true);
  for (const char* s : {"secret", "127.0.0.1", "acme", kAcmeKey}) {
    EXPECT_EQ(a.body.find(s), std::string::npos) << s << " in " << a.body;
  }
  // Other /v1 routes still want the key; /v1/info answers the same with it.
  EXPECT_EQ(server_->Get("/v1/jobs").status, 401);
  EXPECT_EQ(server_->Call("GET", "/v1/info", kAcmeKey).json, a.json);
}

}  // namespace
}  // namespace coderunner::testing
