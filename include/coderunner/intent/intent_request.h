// IntentRequest: the body of POST /v1/intents, parsed and validated, and
// how it is stored in the job record and turned into each attempt's run.
#ifndef CODERUNNER_INTENT_INTENT_REQUEST_H_
#define CODERUNNER_INTENT_INTENT_REQUEST_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"
#include "coderunner/isolation/job_spec.h"
#include "coderunner/wire/execute_request.h"

namespace coderunner::intent {

// The languages Execute mode writes programs in (those the preamble
// builder knows).
inline constexpr const char* kIntentLanguages[] = {"python", "javascript", "typescript", "bash"};

struct IntentRequest {
  std::string intent;  // The plain-English task, as sent.
  // A JSON object of named inputs, or null.
  nlohmann::json inputs = nullptr;
  std::string language;         // Resolved: see language_source.
  std::string language_source;  // "request", "intent" (named in it) or "default".
  std::string volume_id;        // "" for none.
  nlohmann::json limits = nlohmann::json::object();  // As sent; applied to every run.
  std::string callback_url;                          // "" for none.
  // The verify step: "off", "checks" or "full"; "" = the tier's
  // intent_verify, else intents.verify.
  std::string verify;
};

// Parses and validates `body` against `config` (and `tier`, nullable):
// "intent" (required, 1..intents.max_intent_bytes), "inputs" (object; names
// and values must make a valid preamble for the language), "language"
// (one of kIntentLanguages, configured, or an alias of one: "ts" is
// typescript), "volume_id", "limits" (checked by
// building a run as BuildJobSpec would: 422 above the tier's or the
// global maxima), "callback_url" and "verify" (off, checks or full). Unknown fields, wrong types:
// 400 (InvalidArgument "invalid_request" naming the field); malformed JSON: "invalid_json"; nesting
// past server.max_json_depth: "json_too_deep" (ParseBoundedJson). Does not look the volume up.
// Pure; thread-safe.
StatusOr<IntentRequest> ParseIntentRequest(std::string_view body, const config::Config& config,
                                           const config::TierConfig* tier);

// The stored (normalized) form, for the job record; and back. Decoding a
// stored request that no longer parses (the config changed) fails as
// ParseIntentRequest does.
std::string IntentRequestToJson(const IntentRequest& request);
StatusOr<IntentRequest> IntentRequestFromJson(const std::string& json,
                                              const config::Config& config);

// The /v1/execute body of one attempt, as a JSON tree: `program` (preamble
// + the model's code) in the request's language, with its inputs
// (params.json), volume and limits. Pure; thread-safe.
nlohmann::json AttemptBody(const IntentRequest& request, const std::string& program);

// AttemptBody parsed and bounded as /v1/execute parses a body
// (wire::ExecuteRequestFromJson under `caps`; the depth is not checked
// again: the request's inputs and limits were bounded where they entered).
// Fails as ExecuteRequestFromJson does: InvalidArgument "invalid_request"
// naming the field (e.g. inputs larger than caps.max_inputs_bytes, a bad
// limit). Pure; thread-safe.
StatusOr<wire::ExecuteRequest> AttemptRequest(const IntentRequest& request,
                                              const std::string& program,
                                              const wire::RequestCaps& caps);

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_INTENT_REQUEST_H_
