// Translation between Piston's v2 API (engineer-man/piston) and ours: the
// runtimes list, a POST /api/v2/execute body turned into a /v1/execute body,
// and our job result turned into Piston's answer.
#ifndef CODERUNNER_API_PISTON_REQUEST_H_
#define CODERUNNER_API_PISTON_REQUEST_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"

namespace coderunner::api {

// A Piston language/version pair no configured language matches (404 in
// Piston's shape).
inline constexpr char kReasonUnknownRuntime[] = "unknown_runtime";

// One configured language as Piston describes a runtime.
struct PistonRuntime {
  std::string language;  // Our language name, e.g. "python".
  // Three dotted numbers taken from the image tag ("coderunner/python:3.11"
  // gives "3.11.0"; a tag without leading digits gives "0.0.0").
  std::string version;
  int tag_parts = 0;  // How many of `version`'s numbers the tag named (2 for "3.11").
  std::vector<std::string> aliases;  // e.g. py, py3, python3.
  std::string runtime;               // e.g. "node" for javascript; "" for none.
};

// The runtimes of `config.languages`, in config order. Pure; thread-safe.
std::vector<PistonRuntime> PistonRuntimes(const config::Config& config);

// GET /api/v2/runtimes: [{language, version, aliases, runtime?}].
nlohmann::json PistonRuntimesJson(const config::Config& config);

// A translated POST /api/v2/execute.
struct PistonCall {
  std::string language;    // Our language name (aliases resolved).
  std::string version;     // The runtime's version, answered back.
  nlohmann::json execute;  // The equivalent /v1/execute body.
};

// Translates a Piston execute body. Accepted the way Piston clients send it:
// any Content-Type, unknown fields ignored, `version` missing, "" or "*"
// meaning the latest, a version matching ours on the numbers the image tag
// names ("3", "3.11", "3.11.4", "3.x" all match 3.11), files without names
// (the first file is the program, the others are written next to it, an
// unnamed one as file<N>.code), `encoding` utf8, base64 or hex. run_timeout
// (ms) and run_memory_limit (bytes) become limits.timeout_ms and
// limits.memory_bytes, -1 or absent meaning our default, and are clamped to
// the tier's maxima (`tier` nullable: then limits.max); compile_* are
// accepted and ignored (no language here compiles). Errors are
// InvalidArgument "invalid_request" naming the field, "invalid_json" for a
// malformed body, and "unknown_runtime" ("<language>-<version> runtime is
// unknown", as Piston says). Pure; thread-safe.
StatusOr<PistonCall> TranslatePistonRequest(std::string_view body, const config::Config& config,
                                            const config::TierConfig* tier);

// Piston's answer for a finished job: {language, version, run: {stdout,
// stderr, output, code, signal, cpu_time, wall_time, memory}} from our
// /v1/execute result JSON. A job killed by a signal has code null; one
// stopped at its timeout or memory limit reports signal "SIGKILL" (Piston
// kills it so). `output` is stdout followed by stderr (we keep the streams
// apart). A result with status "error" or "cancelled" is Internal (the run
// did not happen as asked), carrying the result's error message. Pure.
StatusOr<nlohmann::json> PistonResponseJson(const PistonCall& call, const nlohmann::json& result);

// Piston's package list (GET /api/v2/packages): [{language,
// language_version, installed}] for every configured runtime, all installed
// (a runtime here is an image built at deploy time). Pure; thread-safe.
nlohmann::json PistonPackagesJson(const config::Config& config);

// Resolves a POST or DELETE /api/v2/packages body {language, version} to the
// runtime it names, aliases and partial versions matched as for execute.
// Errors: InvalidArgument "invalid_json" / "invalid_request" for a bad body,
// NotFound "unknown_package" for a runtime not configured. Pure; thread-safe.
StatusOr<PistonRuntime> ResolvePistonPackage(std::string_view body, const config::Config& config);

// Piston's error body for `status`: {"message": ...} plus our
// {"error": {"code", "message"}} alongside.
nlohmann::json PistonErrorJson(const Status& status);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_PISTON_REQUEST_H_
