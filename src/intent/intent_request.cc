#include "coderunner/intent/intent_request.h"

#include <algorithm>
#include <limits>

#include "coderunner/common/bounded_json.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/wire/execute_request.h"
#include "language_detect.h"
#include "preamble.h"
#include "verify_checks.h"

namespace coderunner::intent {
namespace {

using nlohmann::json;

Status BadField(const std::string& field, const std::string& why) {
  return InvalidArgumentError(field + ": " + why, "invalid_request");
}

bool IsIntentLanguage(std::string_view name) {
  return std::find(std::begin(kIntentLanguages), std::end(kIntentLanguages), name) !=
         std::end(kIntentLanguages);
}

// Fields of the normalized form; the request adds nothing else.
StatusOr<IntentRequest> IntentFromJson(const json& body, const config::Config& config) {
  if (!body.is_object()) return BadField("body", "must be a JSON object");
  for (const auto& [key, value] : body.items()) {
    (void)value;
    static const char* kKnown[] = {"intent", "inputs",       "language", "volume_id",
                                   "limits", "callback_url", "verify",   "language_source"};
    if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown)) {
      return BadField(key,
                      "unknown field (known: intent, inputs, language, volume_id, limits, "
                      "callback_url, verify)");
    }
  }
  IntentRequest req;
  auto intent = body.find("intent");
  if (intent == body.end() || intent->is_null()) return BadField("intent", "is required");
  if (!intent->is_string()) return BadField("intent", "must be a string");
  req.intent = intent->get<std::string>();
  if (req.intent.find_first_not_of(" \t\r\n") == std::string::npos) {
    return BadField("intent", "must not be empty");
  }
  if (static_cast<int64_t>(req.intent.size()) > config.intents.max_intent_bytes) {
    return BadField("intent",
                    "longer than " + std::to_string(config.intents.max_intent_bytes) + " bytes");
  }
  if (auto inputs = body.find("inputs"); inputs != body.end() && !inputs->is_null()) {
    if (!inputs->is_object()) return BadField("inputs", "must be an object of named values");
    req.inputs = *inputs;
  }
  std::string language;
  if (auto l = body.find("language"); l != body.end() && !l->is_null()) {
    if (!l->is_string()) return BadField("language", "must be a string");
    language = l->get<std::string>();
  }
  if (!language.empty()) {
    // An alias ("ts") names its language.
    const config::LanguageSpec* spec = config.FindLanguage(language);
    req.language = spec != nullptr ? spec->name : language;
    req.language_source = "request";
    if (auto src = body.find("language_source"); src != body.end() && src->is_string()) {
      req.language_source = src->get<std::string>();  // A stored request keeps its origin.
    }
  } else if (std::string named = DetectLanguage(req.intent); !named.empty()) {
    req.language = named;
    req.language_source = "intent";
  } else {
    req.language =
        IsIntentLanguage(config.DefaultLanguage().name) ? config.DefaultLanguage().name : "python";
    req.language_source = "default";
  }
  if (!IsIntentLanguage(req.language) || config.FindLanguage(req.language) == nullptr) {
    std::string known;
    for (const char* l : kIntentLanguages) {
      if (config.FindLanguage(l) != nullptr) known += (known.empty() ? "" : ", ") + std::string(l);
    }
    return InvalidArgumentError(
        "language: Execute mode writes programs in " + known + ", not '" + req.language + "'",
        "unknown_language");
  }
  if (auto v = body.find("volume_id"); v != body.end() && !v->is_null()) {
    if (!v->is_string()) return BadField("volume_id", "must be a string");
    req.volume_id = v->get<std::string>();
  }
  if (auto limits = body.find("limits"); limits != body.end() && !limits->is_null()) {
    if (!limits->is_object()) return BadField("limits", "must be an object");
    req.limits = *limits;
  }
  if (auto cb = body.find("callback_url"); cb != body.end() && cb->is_string()) {
    req.callback_url = cb->get<std::string>();
  }
  if (auto v = body.find("verify"); v != body.end() && !v->is_null()) {
    if (!v->is_string() || !ParseVerifyMode(v->get<std::string>())) {
      return BadField("verify", "must be one of off, checks, full");
    }
    req.verify = v->get<std::string>();
  }
  return req;
}

}  // namespace

StatusOr<IntentRequest> ParseIntentRequest(std::string_view body, const config::Config& config,
                                           const config::TierConfig* tier) {
  // callback_url is validated (scheme, private addresses) as for jobs; the
  // rest of the body is ours.
  jobs::SubmitOptions options;
  wire::RequestCaps caps = wire::CapsFromConfig(config);
  CR_ASSIGN_OR_RETURN(std::string rest, jobs::ExtractSubmitOptions(
                                            std::string(body), config.jobs.webhook_allow_private,
                                            caps.max_json_depth, &options));
  JsonBounds bounds;
  bounds.max_depth = caps.max_json_depth;
  CR_ASSIGN_OR_RETURN(json parsed, ParseBoundedJson(rest, bounds));
  if (parsed.is_object()) parsed.erase("language_source");  // Only stored requests carry it.
  CR_ASSIGN_OR_RETURN(IntentRequest req, IntentFromJson(parsed, config));
  req.callback_url = options.callback_url;
  // The preamble is built now so that a bad input name or value is a 400
  // at once, not a failed intent later.
  CR_RETURN_IF_ERROR(BuildPreamble(req.language, req.inputs).status());
  // Limits, inputs size and volume id are checked as every run will be.
  CR_ASSIGN_OR_RETURN(wire::ExecuteRequest probe, AttemptRequest(req, "", caps));
  CR_RETURN_IF_ERROR(wire::BuildJobSpec(probe, config, "job-check", tier).status());
  return req;
}

std::string IntentRequestToJson(const IntentRequest& request) {
  json j = {{"intent", request.intent},
            {"inputs", request.inputs},
            {"language", request.language},
            {"language_source", request.language_source},
            {"limits", request.limits}};
  if (!request.volume_id.empty()) j["volume_id"] = request.volume_id;
  if (!request.callback_url.empty()) j["callback_url"] = request.callback_url;
  if (!request.verify.empty()) j["verify"] = request.verify;
  return j.dump();
}

StatusOr<IntentRequest> IntentRequestFromJson(const std::string& text,
                                              const config::Config& config) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) {
    return InvalidArgumentError("stored intent is not valid JSON", "invalid_json");
  }
  // Validated on acceptance; checked again against today's config, except
  // for the intent's length (a lowered cap does not strand stored intents).
  config::Config today = config;
  today.intents.max_intent_bytes = std::numeric_limits<int32_t>::max();
  return IntentFromJson(parsed, today);
}

json AttemptBody(const IntentRequest& request, const std::string& program) {
  json body = {{"language", request.language}, {"code", program}};
  if (request.inputs.is_object() && !request.inputs.empty()) body["inputs"] = request.inputs;
  if (!request.volume_id.empty()) body["volume_id"] = request.volume_id;
  if (request.limits.is_object() && !request.limits.empty()) body["limits"] = request.limits;
  return body;
}

StatusOr<wire::ExecuteRequest> AttemptRequest(const IntentRequest& request,
                                              const std::string& program,
                                              const wire::RequestCaps& caps) {
  return wire::ExecuteRequestFromJson(AttemptBody(request, program), caps);
}

}  // namespace coderunner::intent
