#include "coderunner/jobs/job_request.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "coderunner/config/config.h"

namespace coderunner::jobs {
namespace {

using nlohmann::json;
using wire::OutputEncoding;

const std::string kDigest = "sha256:" + std::string(64, 'e');

store::JobRecord RecordWith(const std::string& stored) {
  store::JobRecord r;
  r.id = "job-0123456789abcdef01234567";
  r.request_json = stored;
  return r;
}

// ---- EncodeStoredRequest / DecodeStoredRequest ----

TEST(StoredRequestTest, RoundTripsBodyAndPin) {
  struct Case {
    const char* name;
    std::string body;
    std::string pin;
    bool fail_fast;
    std::string tier;
  };
  const std::vector<Case> cases = {
      {"plain", R"json({"code":"print(1)"})json", "", false, ""},
      {"pinned", R"({"code":"x","language":"bash"})", kDigest, false, ""},
      {"fail fast", R"({"code":"x"})", "", true, ""},
      {"tier", R"({"code":"x"})", "", false, "business"},
      {"pinned, fail fast and tier", R"({"code":"x","args":["a","b"],"stdin":"in"})", kDigest, true,
       "free"},
      {"unicode and escapes", R"json({"code":"print(\"h\u00e9\\n\")"})json", "", false, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    std::string stored = EncodeStoredRequest(c.body, c.pin, c.fail_fast, c.tier);
    auto decoded = DecodeStoredRequest(stored);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(json::parse(decoded->first), json::parse(c.body));
    EXPECT_EQ(decoded->second, c.pin);
  }
}

TEST(StoredRequestTest, EnvelopeHasDocumentedShapeAndOmitsDefaults) {
  json plain = json::parse(EncodeStoredRequest(R"({"code":"x"})", "", false, ""));
  EXPECT_EQ(plain, json::parse(R"({"request":{"code":"x"}})"));
  json full = json::parse(EncodeStoredRequest(R"({"code":"x"})", kDigest, true, "pro"));
  EXPECT_EQ(full["request"], json::parse(R"({"code":"x"})"));
  EXPECT_EQ(full["pin_image"], kDigest);
  EXPECT_EQ(full["fail_fast"], true);
  EXPECT_EQ(full["tier"], "pro");
  EXPECT_EQ(full.size(), 4u);
}

TEST(StoredRequestTest, AReplaysPackagesArePinnedInTheEnvelope) {
  const json lock = json::parse(R"([{"name":"crtiny","version":"1.1","sha256":"ab"}])");
  const std::string stored =
      EncodeStoredBody(json::parse(R"({"code":"x"})"), kDigest, false, "", lock);
  EXPECT_EQ(json::parse(stored)["pin_packages"], lock);
  auto parsed = ParseStoredRequest(stored);
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->pin_packages, lock);
  // Not an array: no pins.
  auto odd = ParseStoredRequest(R"({"request":{"code":"x"},"pin_packages":{"a":1}})");
  ASSERT_TRUE(odd.ok());
  EXPECT_TRUE(odd->pin_packages.is_null());
  EXPECT_FALSE(
      json::parse(EncodeStoredRequest(R"({"code":"x"})", "", false, "")).contains("pin_packages"));
}

TEST(StoredRequestTest, DecodeRejectsCorruptEnvelopes) {
  for (const char* stored : {"", "not json", "[]", "5", R"({"pin_image":"x"})", "{}"}) {
    SCOPED_TRACE(stored);
    auto decoded = DecodeStoredRequest(stored);
    ASSERT_FALSE(decoded.ok());
    EXPECT_EQ(decoded.status().code(), StatusCode::kInternal);
  }
}

TEST(StoredRequestTest, DecodeIgnoresAMistypedPin) {
  auto decoded = DecodeStoredRequest(R"({"request":{"code":"x"},"pin_image":5})");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(decoded->second, "");
}

// ---- JobSpecFromRecord ----

TEST(JobSpecFromRecordTest, RebuildsTheSpecWithTodaysConfig) {
  config::Config cfg = config::DefaultConfig();
  std::string body = R"({"language":"bash","code":"echo hi","stdin":"in","args":["a","b"],
      "files":[{"path":"data/x.txt","content":"xyz"}],"limits":{"timeout_ms":2000}})";
  auto job = JobSpecFromRecord(RecordWith(EncodeStoredRequest(body, "", false, "")), cfg);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->spec.id, "job-0123456789abcdef01234567");
  EXPECT_EQ(job->spec.language.name, "bash");
  EXPECT_EQ(job->spec.language.image, cfg.FindLanguage("bash")->image);
  EXPECT_EQ(job->spec.code, "echo hi");
  EXPECT_EQ(job->spec.stdin_data, "in");
  EXPECT_EQ(job->spec.args, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(job->spec.files.size(), 1u);
  EXPECT_EQ(job->spec.files[0].path, "data/x.txt");
  EXPECT_EQ(job->spec.files[0].content, "xyz");
  EXPECT_EQ(job->spec.limits.timeout_ms, 2000);
  EXPECT_EQ(job->spec.limits.memory_bytes, cfg.default_limits.memory_bytes);
  EXPECT_EQ(job->encoding, OutputEncoding::kUtf8);
  EXPECT_FALSE(job->fail_fast);
}

TEST(JobSpecFromRecordTest, PinImageReplacesTheConfiguredImage) {
  config::Config cfg = config::DefaultConfig();
  auto job = JobSpecFromRecord(
      RecordWith(EncodeStoredRequest(R"({"code":"1"})", kDigest, false, "")), cfg);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->spec.language.name, cfg.DefaultLanguage().name);
  EXPECT_EQ(job->spec.language.image, kDigest);
  // Only the image is pinned; the rest of the language comes from config.
  EXPECT_EQ(job->spec.language.command, cfg.DefaultLanguage().command);
  EXPECT_EQ(job->spec.language.file, cfg.DefaultLanguage().file);
}

TEST(JobSpecFromRecordTest, CarriesFailFastAndOutputEncoding) {
  config::Config cfg = config::DefaultConfig();
  struct Case {
    const char* body;
    bool fail_fast;
    OutputEncoding encoding;
  };
  const std::vector<Case> cases = {
      {R"({"code":"1"})", false, OutputEncoding::kUtf8},
      {R"({"code":"1"})", true, OutputEncoding::kUtf8},
      {R"({"code":"1","output_encoding":"base64"})", false, OutputEncoding::kBase64},
      {R"({"code":"1","output_encoding":"base64"})", true, OutputEncoding::kBase64},
      {R"({"code":"1","output_encoding":"utf8"})", true, OutputEncoding::kUtf8},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.body) + (c.fail_fast ? " fail_fast" : ""));
    auto job = JobSpecFromRecord(RecordWith(EncodeStoredRequest(c.body, "", c.fail_fast, "")), cfg);
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    EXPECT_EQ(job->fail_fast, c.fail_fast);
    EXPECT_EQ(job->encoding, c.encoding);
  }
}

TEST(JobSpecFromRecordTest, PropagatesParseAndBuildErrors) {
  config::Config cfg = config::DefaultConfig();
  struct Case {
    const char* name;
    std::string stored;
    StatusCode code;
    std::string reason;
  };
  const std::vector<Case> cases = {
      {"corrupt envelope", "garbage", StatusCode::kInternal, "corrupt_record"},
      {"missing code", EncodeStoredRequest(R"({"stdin":"x"})", "", false, ""),
       StatusCode::kInvalidArgument, "invalid_request"},
      {"unknown language", EncodeStoredRequest(R"({"code":"1","language":"cobol"})", "", false, ""),
       StatusCode::kInvalidArgument, "unknown_language"},
      {"limit above today's maximum",
       EncodeStoredRequest(R"({"code":"1","limits":{"timeout_ms":99999999}})", "", false, ""),
       StatusCode::kFailedPrecondition, "limit_exceeded"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    auto job = JobSpecFromRecord(RecordWith(c.stored), cfg);
    ASSERT_FALSE(job.ok());
    EXPECT_EQ(job.status().code(), c.code) << job.status().ToString();
    EXPECT_EQ(job.status().reason(), c.reason);
  }
}

TEST(JobSpecFromRecordTest, RecordOfTierJobRebuildsWithTierBounds) {
  // A business-tier job may ask for 120 s, twice the global limits.max
  // (60 s): it passed the submit check, so it must also pass at run time.
  config::Config cfg = config::DefaultConfig();
  ASSERT_LT(cfg.max_limits.timeout_ms, 120000);
  std::string body = R"({"code":"1","limits":{"timeout_ms":120000}})";
  auto job = JobSpecFromRecord(RecordWith(EncodeStoredRequest(body, "", false, "business")), cfg);
  ASSERT_TRUE(job.ok()) << job.status().ToString();
  EXPECT_EQ(job->spec.limits.timeout_ms, 120000);

  // And a free-tier job is held to the free maxima, not the global ones.
  std::string big = R"({"code":"1","limits":{"memory_bytes":536870912}})";
  auto free = JobSpecFromRecord(RecordWith(EncodeStoredRequest(big, "", false, "free")), cfg);
  ASSERT_FALSE(free.ok());
  EXPECT_EQ(free.status().reason(), "limit_exceeded");
  EXPECT_NE(free.status().message().find("tier free"), std::string::npos)
      << free.status().ToString();
}

TEST(JobSpecFromRecordTest, RecordOfTierJobRunsUnderTheTierRuntime) {
  config::Config cfg = config::DefaultConfig();
  for (auto& t : cfg.tiers) {
    if (t.name == "free") t.runtime = "runsc";
  }
  struct Case {
    const char* tier;
    const char* want;
  };
  const std::vector<Case> cases = {{"free", "runsc"}, {"pro", ""}, {"", ""}};
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tier);
    auto job = JobSpecFromRecord(
        RecordWith(EncodeStoredRequest(R"({"code":"1"})", "", false, c.tier)), cfg);
    ASSERT_TRUE(job.ok()) << job.status().ToString();
    EXPECT_EQ(job->spec.runtime, c.want);
  }
}

TEST(JobSpecFromRecordTest, RecordWithoutTierRebuildsAgainstTheGlobalMaxima) {
  // Records written before the tier was stored have no "tier" key.
  config::Config cfg = config::DefaultConfig();
  auto ok = JobSpecFromRecord(
      RecordWith(R"({"request":{"code":"1","limits":{"timeout_ms":60000}}})"), cfg);
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(ok->spec.limits.timeout_ms, 60000);
  EXPECT_EQ(ok->spec.runtime, "");
  auto over = JobSpecFromRecord(
      RecordWith(R"({"request":{"code":"1","limits":{"timeout_ms":120000}}})"), cfg);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.status().reason(), "limit_exceeded");
}

TEST(JobSpecFromRecordTest, RecordOfATierNoLongerConfiguredIsAnError) {
  config::Config cfg = config::DefaultConfig();
  auto job =
      JobSpecFromRecord(RecordWith(EncodeStoredRequest(R"({"code":"1"})", "", false, "gold")), cfg);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(job.status().reason(), "unknown_tier");
  EXPECT_NE(job.status().message().find("gold"), std::string::npos);
}

TEST(JobSpecFromRecordTest, MistypedTierInACorruptRecordIsNotACrash) {
  config::Config cfg = config::DefaultConfig();
  for (const char* stored :
       {R"({"request":{"code":"1"},"tier":5})", R"({"request":{"code":"1"},"tier":null})",
        R"({"request":{"code":"1"},"tier":["free"]})"}) {
    SCOPED_TRACE(stored);
    EXPECT_NO_THROW({
      auto job = JobSpecFromRecord(RecordWith(stored), cfg);
      EXPECT_TRUE(job.ok()) << job.status().ToString();
    });
  }
}

TEST(JobSpecFromRecordTest, MistypedFailFastInACorruptRecordIsNotACrash) {
  config::Config cfg = config::DefaultConfig();
  store::JobRecord r = RecordWith(R"({"request":{"code":"1"},"fail_fast":"yes"})");
  // Either an error or fail_fast=false is acceptable; throwing is not.
  EXPECT_NO_THROW({
    auto job = JobSpecFromRecord(r, cfg);
    if (job.ok()) {
      EXPECT_FALSE(job->fail_fast);
    }
  });
}

// ---- InputsSha256 / CacheKey ----

isolation::JobSpec BaseSpec() {
  config::Config cfg = config::DefaultConfig();
  isolation::JobSpec s;
  s.id = "job-1";
  s.language = cfg.DefaultLanguage();
  s.code = "print(input())";
  s.stdin_data = "hello";
  s.args = {"-v", "x"};
  s.files = {{"a.txt", "AAA"}, {"dir/b.bin", std::string("\0\1\2", 3)}, {"c", ""}};
  s.limits = cfg.default_limits;
  return s;
}

bool IsHex64(const std::string& s) {
  return s.size() == 64 && s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

TEST(InputsSha256Test, IsHexAndDeterministic) {
  std::string h = InputsSha256(BaseSpec());
  EXPECT_TRUE(IsHex64(h)) << h;
  EXPECT_EQ(InputsSha256(BaseSpec()), h);
}

TEST(InputsSha256Test, DoesNotDependOnFileOrder) {
  isolation::JobSpec a = BaseSpec();
  isolation::JobSpec b = BaseSpec();
  std::reverse(b.files.begin(), b.files.end());
  isolation::JobSpec c = BaseSpec();
  std::rotate(c.files.begin(), c.files.begin() + 1, c.files.end());
  EXPECT_EQ(InputsSha256(a), InputsSha256(b));
  EXPECT_EQ(InputsSha256(a), InputsSha256(c));
}

TEST(InputsSha256Test, IgnoresWhatIsNotAnInput) {
  isolation::JobSpec a = BaseSpec();
  isolation::JobSpec b = BaseSpec();
  b.id = "job-2";
  b.code = "other code";  // Hashed separately (code_sha256).
  b.limits.timeout_ms += 1;
  b.language.image = kDigest;
  EXPECT_EQ(InputsSha256(a), InputsSha256(b));
}

// Input mutations that must each change the inputs hash and the cache key.
const std::vector<std::pair<const char*, std::function<void(isolation::JobSpec&)>>>
    kInputMutations = {
        {"stdin", [](isolation::JobSpec& s) { s.stdin_data += "!"; }},
        {"stdin emptied", [](isolation::JobSpec& s) { s.stdin_data.clear(); }},
        {"arg value", [](isolation::JobSpec& s) { s.args[1] = "y"; }},
        {"arg added", [](isolation::JobSpec& s) { s.args.push_back(""); }},
        {"args reordered", [](isolation::JobSpec& s) { std::swap(s.args[0], s.args[1]); }},
        {"args split differently", [](isolation::JobSpec& s) { s.args = {"-vx"}; }},
        {"arg moved into stdin",
         [](isolation::JobSpec& s) {
           s.stdin_data += s.args.back();
           s.args.pop_back();
         }},
        {"file content", [](isolation::JobSpec& s) { s.files[0].content = "AAB"; }},
        {"file path", [](isolation::JobSpec& s) { s.files[0].path = "a2.txt"; }},
        {"file removed", [](isolation::JobSpec& s) { s.files.pop_back(); }},
        {"file added",
         [](isolation::JobSpec& s) {
           s.files.push_back({"d", ""});
         }},
        {"path/content boundary moved",
         [](isolation::JobSpec& s) {
           s.files[0].path = "a.txtA";
           s.files[0].content = "AA";
         }},
        {"contents swapped between files",
         [](isolation::JobSpec& s) { std::swap(s.files[0].content, s.files[2].content); }},
};

TEST(InputsSha256Test, ChangesWithStdinArgsAndFiles) {
  const std::string base = InputsSha256(BaseSpec());
  std::set<std::string> seen = {base};
  for (const auto& [name, mutate] : kInputMutations) {
    SCOPED_TRACE(name);
    isolation::JobSpec s = BaseSpec();
    mutate(s);
    std::string h = InputsSha256(s);
    EXPECT_NE(h, base);
    EXPECT_TRUE(seen.insert(h).second) << "collides with another mutation";
  }
}

constexpr const char* kTenant = "acme";

TEST(CacheKeyTest, IsEmptyWithoutAnImageDigest) {
  EXPECT_EQ(CacheKey(BaseSpec(), kTenant, "", OutputEncoding::kUtf8), "");
  EXPECT_EQ(CacheKey(BaseSpec(), kTenant, "", OutputEncoding::kBase64), "");
}

TEST(CacheKeyTest, IsHexDeterministicAndIndependentOfFileOrderAndJobId) {
  std::string k = CacheKey(BaseSpec(), kTenant, kDigest, OutputEncoding::kUtf8);
  EXPECT_TRUE(IsHex64(k)) << k;
  isolation::JobSpec other = BaseSpec();
  other.id = "job-other";
  std::reverse(other.files.begin(), other.files.end());
  EXPECT_EQ(CacheKey(other, kTenant, kDigest, OutputEncoding::kUtf8), k);
}

TEST(CacheKeyTest, ChangesWithEveryPartOfWhatRuns) {
  const std::string base = CacheKey(BaseSpec(), kTenant, kDigest, OutputEncoding::kUtf8);
  std::vector<std::pair<const char*, std::function<void(isolation::JobSpec&)>>> mutations = {
      {"code", [](isolation::JobSpec& s) { s.code += " "; }},
      {"language", [](isolation::JobSpec& s) { s.language.name = "python2"; }},
      {"timeout_ms", [](isolation::JobSpec& s) { s.limits.timeout_ms += 1; }},
      {"cpu_ms", [](isolation::JobSpec& s) { s.limits.cpu_ms += 1; }},
      {"memory_bytes", [](isolation::JobSpec& s) { s.limits.memory_bytes += 1; }},
      {"pids", [](isolation::JobSpec& s) { s.limits.pids += 1; }},
      {"output_bytes", [](isolation::JobSpec& s) { s.limits.output_bytes += 1; }},
      {"tmp_bytes", [](isolation::JobSpec& s) { s.limits.tmp_bytes += 1; }},
      {"cpus", [](isolation::JobSpec& s) { s.limits.cpus = 0.5; }},
      {"runtime runsc", [](isolation::JobSpec& s) { s.runtime = "runsc"; }},
      {"runtime runc", [](isolation::JobSpec& s) { s.runtime = "runc"; }},
  };
  mutations.insert(mutations.end(), kInputMutations.begin(), kInputMutations.end());
  std::set<std::string> seen = {base};
  for (const auto& [name, mutate] : mutations) {
    SCOPED_TRACE(name);
    isolation::JobSpec s = BaseSpec();
    mutate(s);
    std::string k = CacheKey(s, kTenant, kDigest, OutputEncoding::kUtf8);
    EXPECT_NE(k, base);
    EXPECT_TRUE(seen.insert(k).second) << "collides with another mutation";
  }
}

TEST(CacheKeyTest, ChangesWithImageDigestAndOutputEncoding) {
  isolation::JobSpec s = BaseSpec();
  std::string base = CacheKey(s, kTenant, kDigest, OutputEncoding::kUtf8);
  EXPECT_NE(CacheKey(s, kTenant, "sha256:" + std::string(64, 'f'), OutputEncoding::kUtf8), base);
  EXPECT_NE(CacheKey(s, kTenant, kDigest, OutputEncoding::kBase64), base);
}

TEST(CacheKeyTest, IsPerTenant) {
  // Another tenant's identical request never finds this tenant's entry, and
  // names cannot be shifted across the field boundary.
  isolation::JobSpec s = BaseSpec();
  const std::string base = CacheKey(s, kTenant, kDigest, OutputEncoding::kUtf8);
  std::set<std::string> seen = {base};
  for (const char* tenant : {"globex", "", "acme ", "Acme", "acme\n", "default", "local"}) {
    SCOPED_TRACE(tenant);
    std::string k = CacheKey(s, tenant, kDigest, OutputEncoding::kUtf8);
    EXPECT_TRUE(IsHex64(k)) << k;
    EXPECT_TRUE(seen.insert(k).second) << "collides";
  }
  EXPECT_EQ(CacheKey(s, kTenant, kDigest, OutputEncoding::kUtf8), base);
}

TEST(CacheKeyTest, DiffersFromTheInputsHash) {
  isolation::JobSpec s = BaseSpec();
  EXPECT_NE(CacheKey(s, kTenant, kDigest, OutputEncoding::kUtf8), InputsSha256(s));
}

// ---- ExtractSubmitOptions ----

StatusOr<std::string> Extract(const std::string& body, SubmitOptions* opts,
                              bool allow_private = false, int max_depth = 32) {
  return ExtractSubmitOptions(body, allow_private, max_depth, opts);
}

TEST(ExtractSubmitOptionsTest, WithoutJobFieldsKeepsTheBodyAndDefaults) {
  SubmitOptions opts;
  auto body = Extract(R"json({"code":"print(1)","stdin":"x"})json", &opts);
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  EXPECT_EQ(json::parse(*body), json::parse(R"json({"code":"print(1)","stdin":"x"})json"));
  EXPECT_EQ(opts.callback_url, "");
  EXPECT_TRUE(opts.use_cache);
  EXPECT_FALSE(opts.fail_fast);
}

TEST(ExtractSubmitOptionsTest, ReadsAndRemovesTheJobOnlyFields) {
  struct Case {
    const char* name;
    std::string body;
    std::string callback_url;
    bool use_cache;
  };
  const std::vector<Case> cases = {
      {"http callback", R"({"code":"1","callback_url":"http://example.com/hook"})",
       "http://example.com/hook", true},
      {"https callback with port and query",
       R"({"code":"1","callback_url":"https://hooks.example.com:8443/a/b?x=1"})",
       "https://hooks.example.com:8443/a/b?x=1", true},
      {"cache false", R"({"code":"1","cache":false})", "", false},
      {"cache true", R"({"code":"1","cache":true})", "", true},
      {"both", R"({"cache":false,"code":"1","callback_url":"http://example.com/"})",
       "http://example.com/", false},
      {"nulls mean absent", R"({"code":"1","callback_url":null,"cache":null})", "", true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SubmitOptions opts;
    auto body = Extract(c.body, &opts);
    ASSERT_TRUE(body.ok()) << body.status().ToString();
    json j = json::parse(*body);
    EXPECT_FALSE(j.contains("callback_url"));
    EXPECT_FALSE(j.contains("cache"));
    EXPECT_EQ(j, json::parse(R"({"code":"1"})"));
    EXPECT_EQ(opts.callback_url, c.callback_url);
    EXPECT_EQ(opts.use_cache, c.use_cache);
  }
}

TEST(ExtractSubmitOptionsTest, TheReturnedBodyParsesAsAnExecuteRequest) {
  SubmitOptions opts;
  auto body = Extract(R"({"code":"1","callback_url":"http://example.com/h","cache":false})", &opts);
  ASSERT_TRUE(body.ok());
  auto req = wire::ParseExecuteRequest(*body, wire::RequestCaps{});
  EXPECT_TRUE(req.ok()) << req.status().ToString();
}

TEST(ExtractSubmitOptionsTest, ValidatesTheCallbackUrl) {
  struct Case {
    const char* url;
    bool allow_private;
    bool ok;
  };
  const std::vector<Case> cases = {
      {"http://example.com/hook", false, true},
      {"https://example.com/hook", false, true},
      {"file:///etc/passwd", false, false},
      {"file:///etc/passwd", true, false},
      {"ftp://example.com/x", false, false},
      {"example.com/hook", false, false},
      {"", false, false},
      {"http://127.0.0.1/hook", false, false},
      {"http://127.0.0.1/hook", true, true},
      {"http://localhost:9000/", false, false},
      {"http://10.1.2.3/", false, false},
      {"http://192.168.0.1/", true, true},
      {"http://user:pw@example.com/", false, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.url) + (c.allow_private ? " (private allowed)" : ""));
    SubmitOptions opts;
    json body = {{"code", "1"}, {"callback_url", c.url}};
    auto out = Extract(body.dump(), &opts, c.allow_private);
    EXPECT_EQ(out.ok(), c.ok) << (out.ok() ? *out : out.status().ToString());
    if (!out.ok()) {
      EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
      EXPECT_EQ(out.status().reason(), "invalid_callback_url");
    } else {
      EXPECT_EQ(opts.callback_url, c.url);
    }
  }
}

TEST(ExtractSubmitOptionsTest, WrongTypesAreInvalidArgument) {
  const std::vector<std::string> bodies = {
      R"({"code":"1","callback_url":5})",
      R"({"code":"1","callback_url":true})",
      R"({"code":"1","callback_url":["x"]})",
      R"({"code":"1","callback_url":{}})",
      R"({"code":"1","cache":"false"})",
      R"({"code":"1","cache":0})",
      R"({"code":"1","cache":1})",
      R"({"code":"1","cache":[]})",
  };
  for (const auto& b : bodies) {
    SCOPED_TRACE(b);
    SubmitOptions opts;
    auto out = Extract(b, &opts);
    ASSERT_FALSE(out.ok());
    EXPECT_EQ(out.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(out.status().reason(), "invalid_request");
  }
}

TEST(ExtractSubmitOptionsTest, WhatIsNotAJsonObjectPassesThroughUnchanged) {
  const std::vector<std::string> bodies = {
      "",
      "{not json",
      R"({"code":"1","callback_url":"file:///x")",  // Truncated: not validated.
      "[1,2,3]",
      "\"a string\"",
      "null",
      R"({"code":"1"} trailing)",
  };
  for (const auto& b : bodies) {
    SCOPED_TRACE(b);
    SubmitOptions opts;
    auto out = Extract(b, &opts);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ(*out, b);
    EXPECT_EQ(opts.callback_url, "");
    EXPECT_TRUE(opts.use_cache);
  }
}

TEST(ExtractSubmitOptionsTest, TooDeepBodyPassesThroughUnchanged) {
  std::string deep = R"({"code":"1","callback_url":5,"x":)";
  for (int i = 0; i < 10; ++i) deep += "[";
  for (int i = 0; i < 10; ++i) deep += "]";
  deep += "}";
  SubmitOptions opts;
  auto out = Extract(deep, &opts, false, /*max_depth=*/4);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, deep);
  // The same body within the depth cap is read (and its bad field refused).
  auto shallow = Extract(deep, &opts, false, /*max_depth=*/32);
  EXPECT_FALSE(shallow.ok());
}

}  // namespace
}  // namespace coderunner::jobs
