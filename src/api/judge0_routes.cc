#include "judge0_routes.h"

#include <httplib.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "coderunner/wire/job_submission.h"
#include "http_reply.h"
#include "http_status.h"
#include "judge0_api.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// The most submissions one batch takes (Judge0's own bound).
constexpr size_t kMaxJudge0Batch = 20;
constexpr char kTokenPattern[] = "(job-[0-9a-f]{24})";

// Judge0's error shapes: {"<field>": ["<why>"]} with 422 for a submission
// it would refuse, else {"error": "<message>"} at our status.
void ReplyJudge0Error(httplib::Response& res, const Status& status) {
  SetRetryAfter(res, status);
  if (status.reason() == kReasonJudge0Invalid) {
    Reply(res, 422, Judge0InvalidJson(status));
    return;
  }
  Reply(res, HttpStatusFor(status), json{{"error", status.message()}});
}

bool QueryFlag(const httplib::Request& req, const char* name) {
  return req.get_param_value(name) == "true";
}

// One Judge0 submission, parsed and translated into a /v1 submission.
StatusOr<wire::JobSubmission> SubmissionOf(const json& judge0, bool base64,
                                           jobs::JobService& service) {
  CR_ASSIGN_OR_RETURN(json job, Judge0ToJob(judge0, base64, service.config()));
  return wire::JobSubmissionFromJson(std::move(job), service.submission_rules());
}

StatusOr<Answer> Create(jobs::JobService& service, const AuthAdapter& auth,
                        const auth::Principal& p, const httplib::Request& req, const json& body) {
  const bool base64 = QueryFlag(req, "base64_encoded");
  CR_ASSIGN_OR_RETURN(auto fields, Judge0Fields(req.get_param_value("fields")));
  CR_ASSIGN_OR_RETURN(wire::JobSubmission submission, SubmissionOf(body, base64, service));
  if (!QueryFlag(req, "wait")) {
    CR_ASSIGN_OR_RETURN(auto accepted, service.Submit(p.tenant, std::move(submission), p.tier));
    return Answer::Json(201, json{{"token", accepted.record.id}});
  }
  CR_ASSIGN_OR_RETURN(auto slot, auth.HoldLongRequest(p));
  CR_ASSIGN_OR_RETURN(auto answer, service.Execute(p.tenant, std::move(submission), p.tier));
  CR_ASSIGN_OR_RETURN(store::JobRecord rec, service.Get(answer.job_id, p.tenant));
  return Answer::Json(201, Judge0SubmissionJson(rec, base64, fields));
}

StatusOr<Answer> CreateBatch(jobs::JobService& service, const auth::Principal& p,
                             const httplib::Request& req, const json& body) {
  const bool base64 = QueryFlag(req, "base64_encoded");
  if (!body.is_object() || !body.contains("submissions") || !body.at("submissions").is_array() ||
      body.at("submissions").empty() || body.at("submissions").size() > kMaxJudge0Batch) {
    return InvalidArgumentError(
        "submissions: must be an array of 1 to " + std::to_string(kMaxJudge0Batch) + " submissions",
        kReasonJudge0Invalid);
  }
  std::vector<StatusOr<wire::JobSubmission>> entries;
  for (const json& s : body.at("submissions")) entries.push_back(SubmissionOf(s, base64, service));
  json out = json::array();
  for (auto& r : service.SubmitBatch(p.tenant, std::move(entries), p.tier)) {
    if (r.ok()) {
      out.push_back({{"token", r->record.id}});
    } else if (r.status().reason() == kReasonJudge0Invalid) {
      out.push_back(Judge0InvalidJson(r.status()));
    } else {
      out.push_back({{"error", r.status().message()}});
    }
  }
  return Answer::Json(201, out);
}

StatusOr<Answer> GetBatch(jobs::JobService& service, const auth::Principal& p,
                          const httplib::Request& req) {
  const bool base64 = QueryFlag(req, "base64_encoded");
  CR_ASSIGN_OR_RETURN(auto fields, Judge0Fields(req.get_param_value("fields")));
  json out = json::array();
  std::istringstream tokens(req.get_param_value("tokens"));
  size_t count = 0;
  for (std::string token; std::getline(tokens, token, ',');) {
    if (++count > kMaxJudge0Batch) {
      return InvalidArgumentError("tokens: at most " + std::to_string(kMaxJudge0Batch),
                                  kReasonJudge0Invalid);
    }
    auto rec = service.Get(token, p.tenant);
    out.push_back(rec.ok() ? Judge0SubmissionJson(*rec, base64, fields) : json(nullptr));
  }
  return Answer::Json(200, json{{"submissions", out}});
}

}  // namespace

void RegisterJudge0Routes(RouteTable& http, jobs::JobService& service,
                          const AuthAdapter& our_auth) {
  const config::Config& config = service.config();
  AuthAdapter auth = our_auth.WithErrors(ReplyJudge0Error);
  http.Get("/judge0/languages",
           auth.Wrap([&config](const auth::Principal&, const httplib::Request&) {
             return StatusOr<Answer>(Answer::Json(200, Judge0LanguagesJson(config)));
           }));
  http.Get(
      "/judge0/languages/([0-9]{1,6})",
      auth.Wrap([&config](const auth::Principal&, const httplib::Request& req) -> StatusOr<Answer> {
        CR_ASSIGN_OR_RETURN(json lang, Judge0LanguageJson(config, std::stoi(req.matches[1])));
        return Answer::Json(200, lang);
      }));
  http.Get("/judge0/statuses", auth.Wrap([](const auth::Principal&, const httplib::Request&) {
    return StatusOr<Answer>(Answer::Json(200, Judge0StatusesJson()));
  }));
  http.Post("/judge0/submissions",
            auth.WrapJson([&service, auth](const auth::Principal& p, const httplib::Request& req,
                                           const json& body) {
              return Create(service, auth, p, req, body);
            }));
  http.Post(
      "/judge0/submissions/batch",
      auth.WrapJson([&service](const auth::Principal& p, const httplib::Request& req,
                               const json& body) { return CreateBatch(service, p, req, body); }));
  http.Get("/judge0/submissions/batch",
           auth.Wrap([&service](const auth::Principal& p, const httplib::Request& req) {
             return GetBatch(service, p, req);
           }));
  http.Get(std::string("/judge0/submissions/") + kTokenPattern,
           auth.Wrap([&service](const auth::Principal& p,
                                const httplib::Request& req) -> StatusOr<Answer> {
             const bool base64 = QueryFlag(req, "base64_encoded");
             CR_ASSIGN_OR_RETURN(auto fields, Judge0Fields(req.get_param_value("fields")));
             CR_ASSIGN_OR_RETURN(store::JobRecord rec, service.Get(req.matches[1], p.tenant));
             return Answer::Json(200, Judge0SubmissionJson(rec, base64, fields));
           }));
}

}  // namespace coderunner::api
