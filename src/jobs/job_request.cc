#include "coderunner/jobs/job_request.h"

#include <nlohmann/json.hpp>

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/sha256.h"
#include "coderunner/jobs/webhook_sender.h"

namespace coderunner::jobs {
namespace {

using nlohmann::json;

// Length-prefixed fields make the hash input unambiguous.
void Field(std::string& out, std::string_view v) {
  out += std::to_string(v.size());
  out.push_back(':');
  out.append(v);
  out.push_back(';');
}

void Inputs(std::string& out, const isolation::JobSpec& job) {
  Field(out, job.stdin_data);
  Field(out, std::to_string(job.args.size()));
  for (const auto& a : job.args) Field(out, a);
  // Files hash by sorted path so the order in the request does not matter.
  std::vector<const isolation::InputFile*> files;
  for (const auto& f : job.files) files.push_back(&f);
  std::sort(files.begin(), files.end(),
            [](const auto* a, const auto* b) { return a->path < b->path; });
  Field(out, std::to_string(files.size()));
  for (const auto* f : files) {
    Field(out, f->path);
    Field(out, f->content);
  }
}

}  // namespace

std::string EncodeStoredRequest(const std::string& body_json, const std::string& pin_image,
                                bool fail_fast, const std::string& tier) {
  return EncodeStoredBody(json::parse(body_json), pin_image, fail_fast, tier);
}

std::string EncodeStoredBody(const json& body, const std::string& pin_image, bool fail_fast,
                             const std::string& tier, const json& pin_packages) {
  json stored = {{"request", body}};
  if (pin_packages.is_array()) stored["pin_packages"] = pin_packages;
  if (!pin_image.empty()) stored["pin_image"] = pin_image;
  if (fail_fast) stored["fail_fast"] = true;
  if (!tier.empty()) stored["tier"] = tier;
  return stored.dump();
}

StatusOr<StoredRequest> ParseStoredRequest(const std::string& stored) {
  // A corrupt record must not throw (recovery reads every record).
  json j = json::parse(stored, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("request")) {
    return InternalError("stored request is corrupt", "corrupt_record");
  }
  StoredRequest out;
  out.body = std::move(j["request"]);
  if (auto p = j.find("pin_image"); p != j.end() && p->is_string()) out.pin_image = *p;
  if (auto f = j.find("fail_fast"); f != j.end() && f->is_boolean()) out.fail_fast = *f;
  if (auto t = j.find("tier"); t != j.end() && t->is_string()) out.tier = *t;
  if (auto p = j.find("pin_packages"); p != j.end() && p->is_array()) {
    out.pin_packages = std::move(*p);
  }
  return out;
}

StatusOr<std::pair<std::string, std::string>> DecodeStoredRequest(const std::string& stored) {
  CR_ASSIGN_OR_RETURN(StoredRequest parsed, ParseStoredRequest(stored));
  return std::make_pair(parsed.body.dump(), parsed.pin_image);
}

StatusOr<RunnableJob> JobSpecFromRecord(const store::JobRecord& record,
                                        const config::Config& config) {
  CR_ASSIGN_OR_RETURN(StoredRequest stored, ParseStoredRequest(record.request_json));
  CR_ASSIGN_OR_RETURN(wire::ExecuteRequest req,
                      wire::ExecuteRequestFromJson(stored.body, wire::CapsFromConfig(config)));
  const config::TierConfig* tier = nullptr;
  if (!stored.tier.empty()) {
    tier = config.FindTier(stored.tier);
    if (tier == nullptr) {
      return FailedPreconditionError("job " + record.id + " was accepted under tier '" +
                                         stored.tier + "', which is no longer configured",
                                     "unknown_tier");
    }
  }
  RunnableJob out;
  CR_ASSIGN_OR_RETURN(out.spec, wire::BuildJobSpec(req, config, record.id, tier));
  if (!stored.pin_image.empty()) out.spec.language.image = stored.pin_image;
  // Container reuse is the tier's choice, and never crosses tenants.
  if (tier != nullptr && tier->container_reuse) out.spec.reuse_scope = record.tenant;
  out.encoding = req.output_encoding;
  out.fail_fast = stored.fail_fast;
  if (req.judge) {
    CR_ASSIGN_OR_RETURN(judge::JudgePlan plan, wire::BuildJudgePlan(req, out.spec, config, tier));
    out.judge = std::move(plan);
  }
  return out;
}

std::string InputsSha256(const isolation::JobSpec& job) {
  std::string buf;
  Inputs(buf, job);
  return Sha256Hex(buf);
}

std::string CacheKey(const isolation::JobSpec& job, const std::string& tenant,
                     const std::string& image_digest, wire::OutputEncoding encoding) {
  if (image_digest.empty()) return "";
  std::string buf;
  // v2: keys carry the tenant; v1 entries (shared by every tenant) never
  // match again.
  Field(buf, "coderunner-cache-v2");
  Field(buf, tenant);
  Field(buf, encoding == wire::OutputEncoding::kBase64 ? "base64" : "utf8");
  Field(buf, job.language.name);
  Field(buf, image_digest);
  Field(buf, job.language.file);
  for (const auto& c : job.language.command) Field(buf, c);
  Field(buf, job.code);
  Inputs(buf, job);
  const isolation::Limits& l = job.limits;
  for (int64_t v : {l.timeout_ms, l.cpu_ms, l.memory_bytes, l.pids, l.output_bytes, l.tmp_bytes}) {
    Field(buf, std::to_string(v));
  }
  Field(buf, std::to_string(l.cpus));
  // Only when set, so that keys of jobs without a runtime stay as they were.
  if (!job.runtime.empty()) Field(buf, "runtime=" + job.runtime);
  // Likewise packages, in request order (the order pip is given them).
  for (const auto& p : job.python_packages) Field(buf, "python-package=" + p);
  for (const auto& p : job.npm_packages) Field(buf, "npm-package=" + p);
  return Sha256Hex(buf);
}

StatusOr<std::string> ExtractSubmitOptions(const std::string& body, bool allow_private_callbacks,
                                           int max_depth, SubmitOptions* options) {
  JsonBounds bounds;
  bounds.max_depth = max_depth;
  auto parsed = ParseBoundedJson(body, bounds);
  // Malformed, too deep or not an object: ParseExecuteRequest says so.
  if (!parsed.ok() || !parsed->is_object()) return body;
  json& j = *parsed;
  if (auto it = j.find("callback_url"); it != j.end()) {
    if (!it->is_null()) {
      if (!it->is_string()) {
        return InvalidArgumentError("callback_url: must be a string", "invalid_request");
      }
      options->callback_url = it->get<std::string>();
      CR_RETURN_IF_ERROR(ValidateCallbackUrl(options->callback_url, allow_private_callbacks));
    }
    j.erase(it);
  }
  if (auto it = j.find("cache"); it != j.end()) {
    if (!it->is_null()) {
      if (!it->is_boolean())
        return InvalidArgumentError("cache: must be a boolean", "invalid_request");
      options->use_cache = it->get<bool>();
    }
    j.erase(it);
  }
  return j.dump();
}

}  // namespace coderunner::jobs
