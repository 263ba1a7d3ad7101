#include "piston_request.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>

#include "coderunner/common/base64.h"
#include "coderunner/common/bounded_json.h"
#include "coderunner/common/utf8.h"
#include "coderunner/engine/transport.h"
#include "http_status.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// A request body as JSON within server.max_json_depth.
StatusOr<json> ParsePistonBody(std::string_view body, const config::Config& config) {
  JsonBounds bounds;
  bounds.max_depth = config.server.max_json_depth;
  return ParseBoundedJson(body, bounds);
}

// Names Piston and its clients commonly use for our languages. Piston
// matches a request's language against the name and every alias.
struct AliasEntry {
  const char* language;
  std::vector<std::string> aliases;
  const char* runtime;
  // The version Piston gives the runtime when the image tag names something
  // else, and how many of its numbers a request's version must match; ""
  // when the tag's numbers are the version.
  const char* version = "";
  int version_parts = 0;
};

const std::vector<AliasEntry>& KnownAliases() {
  // TypeScript: Piston's typescript package (5.0.3) has these aliases and no
  // runtime field. Our image tag (node:20) names Node.js, not TypeScript, and
  // tsx has no TypeScript compiler: esbuild strips TypeScript 5 syntax. So
  // the version is 5.0.0 and any 5.x a client asks for matches.
  static const std::vector<AliasEntry> kAll = {
      {"python", {"py", "py3", "python3"}, ""},
      {"javascript", {"js", "node", "node-js", "node-javascript"}, "node"},
      {"typescript", {"ts", "node-ts", "tsc", "typescript5", "ts5"}, "", "5.0.0", 1},
      {"bash", {"sh"}, ""},
      // Piston's gcc package: c (alias gcc) and c++ (aliases cpp, g++).
      {"c", {"gcc"}, "gcc"},
      {"cpp", {"c++", "g++"}, "gcc"},
      {"go", {"golang"}, ""},
      {"java", {}, ""},
      {"rust", {"rs"}, ""},
  };
  return kAll;
}

Status BadPistonRequest(const std::string& why) {
  return InvalidArgumentError(why, "invalid_request");
}

// "coderunner/python:3.11-slim" -> {3, 11}: the leading dotted numbers of
// the tag, so versions follow whatever image the operator configured.
std::vector<std::string> TagNumbers(const std::string& image) {
  size_t colon = image.rfind(':');
  size_t slash = image.rfind('/');
  if (colon == std::string::npos || (slash != std::string::npos && colon < slash)) return {};
  std::vector<std::string> parts;
  std::string cur;
  for (size_t i = colon + 1; i < image.size(); ++i) {
    char c = image[i];
    if (std::isdigit(static_cast<unsigned char>(c))) {
      cur.push_back(c);
    } else if (c == '.' && !cur.empty()) {
      parts.push_back(cur);
      cur.clear();
    } else {
      break;
    }
  }
  if (!cur.empty()) parts.push_back(cur);
  return parts;
}

std::vector<std::string> SplitDots(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t dot = s.find('.', start);
    out.push_back(s.substr(start, dot - start));
    if (dot == std::string::npos) return out;
    start = dot + 1;
  }
}

// A version component as a canonical number ("011" -> "11"); "" if it is
// not all digits (compared as text, so no length can overflow).
std::string StripZeros(const std::string& part) {
  if (part.empty()) return "";
  for (char c : part) {
    if (c < '0' || c > '9') return "";
  }
  size_t first = part.find_first_not_of('0');
  return first == std::string::npos ? "0" : part.substr(first);
}

// Piston resolves versions with semver ranges; clients in practice send
// "*", an exact version or a prefix. We compare only the numbers our image
// tag names: python:3.11 is every 3.11.x.
bool VersionMatches(std::string wanted, const PistonRuntime& rt) {
  while (!wanted.empty() && std::string_view("v^~=").find(wanted.front()) != std::string::npos) {
    wanted.erase(0, 1);
  }
  if (wanted.empty() || wanted == "*" || wanted == "latest") return true;
  std::vector<std::string> want = SplitDots(wanted);
  std::vector<std::string> have = SplitDots(rt.version);
  size_t n = std::min(want.size(), static_cast<size_t>(std::max(rt.tag_parts, 1)));
  for (size_t i = 0; i < n && i < have.size(); ++i) {
    if (want[i] == "x" || want[i] == "X" || want[i] == "*") continue;
    if (StripZeros(want[i]) != StripZeros(have[i])) return false;
  }
  return true;
}

int Nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

StatusOr<std::string> HexDecode(const std::string& text, const std::string& field) {
  if (text.size() % 2 != 0) return BadPistonRequest(field + ": hex content has an odd length");
  std::string out;
  out.reserve(text.size() / 2);
  for (size_t i = 0; i < text.size(); i += 2) {
    int hi = Nibble(text[i]);
    int lo = Nibble(text[i + 1]);
    if (hi < 0 || lo < 0) return BadPistonRequest(field + ": not hex");
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

// A Piston limit: absent, null or -1 means our default (nullopt); anything
// else must be a positive number and is clamped to `max`.
StatusOr<std::optional<int64_t>> Limit(const json& body, const char* key, int64_t max) {
  auto it = body.find(key);
  if (it == body.end() || it->is_null()) return std::optional<int64_t>();
  if (!it->is_number()) return BadPistonRequest(std::string(key) + " must be a number");
  double v = it->get<double>();
  if (v == -1) return std::optional<int64_t>();
  if (!(v > 0)) return BadPistonRequest(std::string(key) + " must be a positive number or -1");
  return std::optional<int64_t>(std::min(static_cast<int64_t>(std::ceil(std::min(v, 9e18))), max));
}

// The runtime a body's {language, version} names, aliases and partial
// versions resolved.
StatusOr<PistonRuntime> Resolve(const json& body, const config::Config& config) {
  if (!body.is_object()) return BadPistonRequest("body must be a JSON object");
  auto lang_it = body.find("language");
  if (lang_it == body.end() || !lang_it->is_string() || lang_it->get<std::string>().empty()) {
    return BadPistonRequest("language is required as a string");
  }
  std::string language = lang_it->get<std::string>();
  std::string version;
  if (auto v = body.find("version"); v != body.end() && !v->is_null()) {
    if (!v->is_string()) return BadPistonRequest("version must be a string");
    version = v->get<std::string>();
  }
  for (auto& rt : PistonRuntimes(config)) {
    bool named = rt.language == language ||
                 std::find(rt.aliases.begin(), rt.aliases.end(), language) != rt.aliases.end();
    if (named && VersionMatches(version, rt)) return std::move(rt);
  }
  return InvalidArgumentError(
      language + "-" + (version.empty() ? "*" : version) + " runtime is unknown",
      kReasonUnknownRuntime);
}

// One entry of a Piston body's "files": its name ("" if none) and its
// content decoded from its encoding (utf8, base64 or hex).
struct PistonFile {
  std::string name;
  std::string bytes;
};

StatusOr<PistonFile> ReadFile(const json& f, const std::string& where) {
  if (!f.is_object()) return BadPistonRequest(where + " must be an object");
  auto content = f.find("content");
  if (content == f.end() || !content->is_string()) {
    return BadPistonRequest(where + ".content is required as a string");
  }
  std::string encoding = "utf8";
  if (auto e = f.find("encoding"); e != f.end() && !e->is_null()) {
    if (!e->is_string()) return BadPistonRequest(where + ".encoding must be a string");
    encoding = e->get<std::string>();
  }
  PistonFile file;
  if (auto n = f.find("name"); n != f.end() && !n->is_null()) {
    if (!n->is_string()) return BadPistonRequest(where + ".name must be a string");
    file.name = n->get<std::string>();
  }
  file.bytes = content->get<std::string>();
  if (encoding == "base64") {
    auto decoded = Base64Decode(file.bytes);
    if (!decoded.ok()) return BadPistonRequest(where + ".content: " + decoded.status().message());
    file.bytes = std::move(*decoded);
  } else if (encoding == "hex") {
    CR_ASSIGN_OR_RETURN(file.bytes, HexDecode(file.bytes, where + ".content"));
  } else if (encoding != "utf8") {
    return BadPistonRequest(where + ".encoding must be one of utf8, base64, hex");
  }
  return file;
}

// A Piston body's "files" as /v1/execute's "code" (the first file) and
// "files" (the rest, base64), into `out`.
Status TranslateFiles(const json& body, json& out) {
  auto files = body.find("files");
  if (files == body.end() || !files->is_array() || files->empty()) {
    return BadPistonRequest("files is required as a non-empty array");
  }
  json extra = json::array();
  for (size_t i = 0; i < files->size(); ++i) {
    CR_ASSIGN_OR_RETURN(PistonFile file, ReadFile((*files)[i], "files[" + std::to_string(i) + "]"));
    if (i == 0) {
      // The first file is the program; it runs as the language's own file
      // whatever the client called it.
      // Decoded bytes may be any bytes; the request is UTF-8 JSON, as if
      // dumped with U+FFFD for every ill-formed sequence.
      out["code"] = IsValidUtf8(file.bytes) ? std::move(file.bytes) : SanitizeUtf8(file.bytes);
      continue;
    }
    if (file.name.empty()) file.name = "file" + std::to_string(i) + ".code";
    extra.push_back(
        {{"path", file.name}, {"content", Base64Encode(file.bytes)}, {"encoding", "base64"}});
  }
  if (!extra.empty()) out["files"] = extra;
  return OkStatus();
}

// A Piston body's "stdin" and "args" (numbers as their text), into `out`.
Status TranslateStdinAndArgs(const json& body, json& out) {
  if (auto s = body.find("stdin"); s != body.end() && !s->is_null()) {
    if (!s->is_string()) return BadPistonRequest("stdin must be a string");
    out["stdin"] = *s;
  }
  if (auto a = body.find("args"); a != body.end() && !a->is_null()) {
    if (!a->is_array()) return BadPistonRequest("args must be an array of strings");
    json args = json::array();
    for (const auto& arg : *a) {
      if (arg.is_string()) {
        args.push_back(arg);
      } else if (arg.is_number()) {
        args.push_back(arg.dump());
      } else {
        return BadPistonRequest("args must be an array of strings");
      }
    }
    out["args"] = args;
  }
  return OkStatus();
}

// A Piston body's run limits, clamped to the tier's (or the global) maxima,
// into `out` as "limits"; the compile limits are checked and ignored.
Status TranslateLimits(const json& body, const config::Config& config,
                       const config::TierConfig* tier, json& out) {
  for (const char* ignored : {"compile_timeout", "compile_memory_limit"}) {
    CR_ASSIGN_OR_RETURN(auto unused, Limit(body, ignored, INT64_MAX));
    (void)unused;
  }
  int64_t max_timeout = tier != nullptr ? tier->max_timeout_ms : config.max_limits.timeout_ms;
  int64_t max_memory = tier != nullptr ? tier->max_memory_bytes : config.max_limits.memory_bytes;
  CR_ASSIGN_OR_RETURN(auto timeout, Limit(body, "run_timeout", max_timeout));
  CR_ASSIGN_OR_RETURN(auto memory, Limit(body, "run_memory_limit", max_memory));
  json limits = json::object();
  if (timeout) limits["timeout_ms"] = *timeout;
  if (memory) limits["memory_bytes"] = *memory;
  if (!limits.empty()) out["limits"] = limits;
  return OkStatus();
}

StatusOr<PistonCall> FromJson(const json& body, const config::Config& config,
                              const config::TierConfig* tier) {
  CR_ASSIGN_OR_RETURN(PistonRuntime runtime, Resolve(body, config));
  json out = {{"language", runtime.language}, {"output_encoding", "utf8"}};
  CR_RETURN_IF_ERROR(TranslateFiles(body, out));
  CR_RETURN_IF_ERROR(TranslateStdinAndArgs(body, out));
  CR_RETURN_IF_ERROR(TranslateLimits(body, config, tier, out));
  return PistonCall{runtime.language, runtime.version, std::move(out)};
}

}  // namespace

std::vector<PistonRuntime> PistonRuntimes(const config::Config& config) {
  std::vector<PistonRuntime> out;
  for (const auto& l : config.languages) {
    PistonRuntime rt;
    rt.language = l.name;
    std::vector<std::string> numbers = TagNumbers(l.image);
    rt.tag_parts = static_cast<int>(numbers.size());
    while (numbers.size() < 3) numbers.push_back("0");
    for (size_t i = 0; i < numbers.size(); ++i) rt.version += (i ? "." : "") + numbers[i];
    for (const auto& known : KnownAliases()) {
      if (l.name != known.language) continue;
      rt.aliases = known.aliases;
      rt.runtime = known.runtime;
      if (*known.version != '\0') {
        rt.version = known.version;
        rt.tag_parts = known.version_parts;
      }
    }
    out.push_back(std::move(rt));
  }
  return out;
}

json PistonRuntimesJson(const config::Config& config) {
  json out = json::array();
  for (const auto& rt : PistonRuntimes(config)) {
    json j = {{"language", rt.language}, {"version", rt.version}, {"aliases", rt.aliases}};
    if (!rt.runtime.empty()) j["runtime"] = rt.runtime;
    out.push_back(std::move(j));
  }
  return out;
}

StatusOr<PistonCall> TranslatePistonRequest(std::string_view body, const config::Config& config,
                                            const config::TierConfig* tier) {
  CR_ASSIGN_OR_RETURN(json parsed, ParsePistonBody(body, config));
  // Every access above checks types first; nlohmann's accessors are still
  // this module's boundary.
  try {
    return FromJson(parsed, config, tier);
  } catch (const json::exception& e) {
    return BadPistonRequest(std::string("bad request: ") + e.what());
  }
}

json PistonPackagesJson(const config::Config& config) {
  json out = json::array();
  for (const auto& rt : PistonRuntimes(config)) {
    out.push_back(
        {{"language", rt.language}, {"language_version", rt.version}, {"installed", true}});
  }
  return out;
}

StatusOr<PistonRuntime> ResolvePistonPackage(std::string_view body, const config::Config& config) {
  CR_ASSIGN_OR_RETURN(json parsed, ParsePistonBody(body, config));
  try {
    StatusOr<PistonRuntime> rt = Resolve(parsed, config);
    if (rt.ok() || rt.status().reason() != kReasonUnknownRuntime) return rt;
    // Piston answers a package it does not have with 404; here the runtimes
    // are the configured images, so none can be fetched either.
    return NotFoundError(rt.status().message() +
                             ": no such package here (runtimes are the service's configured "
                             "images, see GET /api/v2/runtimes)",
                         "unknown_package");
  } catch (const json::exception& e) {
    return BadPistonRequest(std::string("bad request: ") + e.what());
  }
}

namespace {

// One of Piston's stages (run, compile) from a step of a job's result (the
// result itself, or its `compile`) and that step's two streams.
json PistonStage(const json& step, const std::string& out, const std::string& err) {
  std::string status = step.value("status", "");
  json signal = step.value("signal", json(nullptr));
  if (signal.is_null() && (status == "timeout" || status == "oom")) signal = "SIGKILL";
  json code = signal.is_null() ? step.value("exit_code", json(nullptr)) : json(nullptr);
  json metrics = step.value("metrics", json::object());
  return {{"stdout", out},
          {"stderr", err},
          {"output", out + err},
          {"code", code},
          {"signal", signal},
          {"cpu_time", metrics.value("cpu_ms", json(nullptr))},
          {"wall_time", metrics.value("run_ms", json(nullptr))},
          {"memory", metrics.value("memory_peak_bytes", json(nullptr))}};
}

}  // namespace

StatusOr<json> PistonResponseJson(const PistonCall& call, const json& result) {
  try {
    std::string status = result.value("status", "");
    if (status == "error" || status == "cancelled") {
      std::string reason = "internal";
      std::string message = "the job did not run (" + status + ")";
      if (result.contains("error") && result["error"].is_object()) {
        reason = result["error"].value("code", reason);
        message = result["error"].value("message", message);
      }
      if (reason == engine::kReasonEngineUnavailable) return UnavailableError(message, reason);
      return InternalError(message, reason);
    }
    json answer = {{"language", call.language}, {"version", call.version}};
    // A compiled language: Piston's compile stage (the compiler's messages
    // as its stderr, the two streams being one here); a build that failed
    // leaves no run stage, as in Piston.
    auto compile = result.find("compile");
    if (compile != result.end() && compile->is_object()) {
      answer["compile"] = PistonStage(*compile, "", compile->value("output", ""));
      if (compile->value("status", "") != "succeeded") return answer;
    }
    answer["run"] = PistonStage(result, result.value("stdout", ""), result.value("stderr", ""));
    return answer;
  } catch (const json::exception& e) {
    return InternalError(std::string("unreadable job result: ") + e.what(), "internal");
  }
}

json PistonErrorJson(const Status& status) {
  json j = ErrorJson(status);
  j["message"] = status.message();
  return j;
}

}  // namespace coderunner::api
