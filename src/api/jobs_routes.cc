#include "jobs_routes.h"

#include <httplib.h>

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "coderunner/common/utf8.h"
#include "coderunner/isolation/safe_tree.h"
#include "coderunner/wire/job_json.h"
#include "coderunner/wire/job_submission.h"
#include "job_event_stream.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// A route under /v1/jobs/{id}: the id's pattern, then `suffix`.
std::string JobPath(const char* suffix) {
  return std::string("/v1/jobs/(job-[0-9a-f]{24})") + suffix;
}

json AcceptedJson(const jobs::Accepted& a) {
  json j = {{"id", a.record.id}, {"status", store::JobStatusName(a.record.status)}};
  if (!a.record.replay_of.empty()) j["replay_of"] = a.record.replay_of;
  if (a.record.cached) j["cached"] = true;
  return j;
}

StatusOr<int64_t> IntParam(const httplib::Request& req, const char* name, int64_t fallback,
                           int64_t min, int64_t max) {
  if (!req.has_param(name)) return fallback;
  std::string v = req.get_param_value(name);
  try {
    size_t used = 0;
    long long n = std::stoll(v, &used);
    if (used == v.size() && n >= min && n <= max) return static_cast<int64_t>(n);
  } catch (const std::exception&) {
  }
  return InvalidArgumentError(std::string(name) + ": expected an integer from " +
                                  std::to_string(min) + " to " + std::to_string(max),
                              "invalid_request");
}

// POST /v1/execute, /v1/jobs and /v1/jobs/batch.
void RegisterSubmitRoutes(RouteTable& http, jobs::JobService& service, const AuthAdapter& auth) {
  const config::Config& config = service.config();

  // The body as the route table parsed it, read once into a submission (an
  // empty body, passed on as null, is parsed for its "invalid_json").
  auto parse = [&service](const httplib::Request& req, const json& body) {
    return req.body.empty() ? wire::ParseJobSubmission(req.body, service.submission_rules())
                            : wire::JobSubmissionFromJson(body, service.submission_rules());
  };

  http.Post("/v1/execute", auth.WrapJson([&service, auth, parse](
                                             const auth::Principal& p, const httplib::Request& req,
                                             const json& body) -> StatusOr<Answer> {
    CR_ASSIGN_OR_RETURN(auto slot, auth.HoldLongRequest(p));
    CR_ASSIGN_OR_RETURN(auto submission, parse(req, body));
    CR_ASSIGN_OR_RETURN(auto result, service.Execute(p.tenant, std::move(submission), p.tier));
    return Answer::Text(200, std::move(result.result_json));
  }));

  http.Post("/v1/jobs", auth.WrapJson([&service, parse](const auth::Principal& p,
                                                        const httplib::Request& req,
                                                        const json& body) -> StatusOr<Answer> {
    CR_ASSIGN_OR_RETURN(auto submission, parse(req, body));
    CR_ASSIGN_OR_RETURN(auto accepted, service.Submit(p.tenant, std::move(submission), p.tier));
    return Answer::Json(202, AcceptedJson(accepted));
  }));

  // The body arrives parsed within server.max_json_depth (RouteTable), so
  // dumping each entry below is bounded.
  http.Post("/v1/jobs/batch", auth.WrapJson([&service, &config](
                                                const auth::Principal& p, const httplib::Request&,
                                                const json& body) -> StatusOr<Answer> {
    if (!body.is_object() || !body.contains("jobs") || !body.at("jobs").is_array()) {
      return InvalidArgumentError("body must be {\"jobs\":[...]}", "invalid_request");
    }
    const json& jobs = body.at("jobs");
    if (jobs.empty() || jobs.size() > static_cast<size_t>(config.jobs.max_batch)) {
      return InvalidArgumentError(
          "jobs: must hold 1 to " + std::to_string(config.jobs.max_batch) + " entries",
          "invalid_request");
    }
    std::vector<StatusOr<wire::JobSubmission>> entries;
    for (const auto& j : jobs) {
      entries.push_back(wire::JobSubmissionFromJson(j, service.submission_rules()));
    }
    json out = json::array();
    for (auto& r : service.SubmitBatch(p.tenant, std::move(entries), p.tier)) {
      out.push_back(
          r.ok() ? AcceptedJson(*r)
                 : json{{"error",
                         {{"code", r.status().reason()}, {"message", r.status().message()}}}});
    }
    return Answer::Json(202, {{"jobs", out}});
  }));
}

// GET /v1/jobs: a page of the tenant's jobs.
StatusOr<Answer> ListJobs(jobs::JobService& service, const auth::Principal& p,
                          const httplib::Request& req) {
  store::ListFilter filter;
  filter.tenant = p.tenant;
  if (req.has_param("status")) {
    auto st = store::ParseJobStatus(req.get_param_value("status"));
    if (!st) return InvalidArgumentError("status: unknown status", "invalid_request");
    filter.status = *st;
  }
  CR_ASSIGN_OR_RETURN(int64_t limit, IntParam(req, "limit", 50, 1, 500));
  filter.limit = static_cast<int>(limit);
  if (req.has_param("cursor")) filter.cursor = req.get_param_value("cursor");
  auto page = service.List(filter);
  if (!page.ok()) return page.status();
  json jobs_json = json::array();
  for (const auto& r : page->jobs) jobs_json.push_back(wire::JobSummaryJson(r));
  return Answer::Json(
      200, {{"jobs", jobs_json},
            {"next_cursor", page->next_cursor.empty() ? json(nullptr) : json(page->next_cursor)}});
}

// GET /v1/jobs/{id}/wait?timeout_s=N: 200 terminal, 202 not yet.
StatusOr<Answer> WaitForJob(jobs::JobService& service, const AuthAdapter& auth,
                            const auth::Principal& p, const httplib::Request& req) {
  const config::Config& config = service.config();
  CR_ASSIGN_OR_RETURN(int64_t timeout, IntParam(req, "timeout_s", 30, 0, config.jobs.max_wait_s));
  auto now = service.Get(req.matches[1], p.tenant);
  if (!now.ok()) return now.status();
  // Only a wait that may last holds a long-request slot.
  std::shared_ptr<auth::LongRequestLimiter::Lease> slot;
  if (!store::IsTerminal(now->status) && timeout > 0) {
    CR_ASSIGN_OR_RETURN(slot, auth.HoldLongRequest(p));
  }
  auto rec = service.Wait(req.matches[1], p.tenant, std::chrono::seconds(timeout));
  if (!rec.ok()) return rec.status();
  return Answer::Json(store::IsTerminal(rec->status) ? 200 : 202, wire::JobToJson(*rec));
}

// The body of POST /v1/jobs/wait: {"ids": [...], "mode": "any"|"all",
// "timeout_s": N}.
struct WaitManyRequest {
  std::vector<std::string> ids;
  bool all = true;
  int64_t timeout_s = 30;
};

StatusOr<WaitManyRequest> ParseWaitMany(const json& body, const config::Config& config) {
  auto invalid = [](const std::string& what) {
    return InvalidArgumentError(what, "invalid_request");
  };
  if (!body.is_object()) return invalid("body must be {\"ids\":[...]}");
  WaitManyRequest w;
  const auto ids = body.find("ids");
  const size_t max_ids = static_cast<size_t>(config.jobs.max_batch);
  if (ids == body.end() || !ids->is_array() || ids->empty() || ids->size() > max_ids) {
    return invalid("ids: must hold 1 to " + std::to_string(max_ids) + " job ids");
  }
  for (const auto& id : *ids) {
    if (!id.is_string()) return invalid("ids: each must be a job id string");
    w.ids.push_back(id.get<std::string>());
  }
  std::vector<std::string> sorted = w.ids;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return invalid("ids: each job at most once");
  }
  if (auto mode = body.find("mode"); mode != body.end()) {
    if (!mode->is_string() || (*mode != "any" && *mode != "all")) {
      return invalid("mode: \"any\" or \"all\"");
    }
    w.all = *mode == "all";
  }
  if (auto t = body.find("timeout_s"); t != body.end()) {
    if (!t->is_number_integer() || *t < 0 || *t > config.jobs.max_wait_s) {
      return invalid("timeout_s: expected an integer from 0 to " +
                     std::to_string(config.jobs.max_wait_s));
    }
    w.timeout_s = t->get<int64_t>();
  }
  return w;
}

// POST /v1/jobs/wait: 200 once one of the jobs (mode any) or every one
// (mode all, the default) is terminal, 202 at the timeout; each job as
// GET /v1/jobs lists it (its result from GET /v1/jobs/{id}).
StatusOr<Answer> WaitForJobs(jobs::JobService& service, const AuthAdapter& auth,
                             const auth::Principal& p, const json& body) {
  CR_ASSIGN_OR_RETURN(WaitManyRequest w, ParseWaitMany(body, service.config()));
  CR_ASSIGN_OR_RETURN(auto records,
                      service.WaitMany(w.ids, p.tenant, w.all, std::chrono::milliseconds(0)));
  auto satisfied = [&] {
    size_t terminal = 0;
    for (const auto& r : records) terminal += store::IsTerminal(r.status) ? 1 : 0;
    return w.all ? terminal == records.size() : terminal > 0;
  };
  if (!satisfied() && w.timeout_s > 0) {
    // Only a wait that may last holds a long-request slot.
    CR_ASSIGN_OR_RETURN(auto slot, auth.HoldLongRequest(p));
    CR_ASSIGN_OR_RETURN(
        records, service.WaitMany(w.ids, p.tenant, w.all, std::chrono::seconds(w.timeout_s)));
  }
  json jobs_json = json::array();
  for (const auto& r : records) jobs_json.push_back(wire::JobSummaryJson(r));
  return Answer::Json(satisfied() ? 200 : 202,
                      {{"mode", w.all ? "all" : "any"}, {"jobs", std::move(jobs_json)}});
}

// GET, wait, DELETE and replay of /v1/jobs/{id}, and GET /v1/jobs.
void RegisterJobRecordRoutes(RouteTable& http, jobs::JobService& service, const AuthAdapter& auth) {
  http.Get("/v1/jobs", auth.Wrap([&service](const auth::Principal& p, const httplib::Request& req) {
    return ListJobs(service, p, req);
  }));

  http.Get(JobPath(""), auth.Wrap([&service](const auth::Principal& p,
                                             const httplib::Request& req) -> StatusOr<Answer> {
    auto rec = service.Get(req.matches[1], p.tenant);
    if (!rec.ok()) return rec.status();
    return Answer::Json(200, wire::JobToJson(*rec));
  }));

  http.Post("/v1/jobs/wait",
            auth.WrapJson([&service, auth](const auth::Principal& p, const httplib::Request&,
                                           const json& body) {
              return WaitForJobs(service, auth, p, body);
            }));

  http.Get(JobPath("/wait"),
           auth.Wrap([&service, auth](const auth::Principal& p, const httplib::Request& req) {
             return WaitForJob(service, auth, p, req);
           }));

  http.Delete(JobPath(""), auth.Wrap([&service](const auth::Principal& p,
                                                const httplib::Request& req) -> StatusOr<Answer> {
    auto rec = service.Cancel(req.matches[1], p.tenant);
    if (!rec.ok()) return rec.status();
    return Answer::Json(200, wire::JobToJson(*rec));
  }));

  http.Post(JobPath("/replay"),
            auth.Wrap([&service](const auth::Principal& p,
                                 const httplib::Request& req) -> StatusOr<Answer> {
              auto accepted = service.Replay(req.matches[1], p.tenant, p.tier);
              if (!accepted.ok()) return accepted.status();
              return Answer::Json(202, AcceptedJson(*accepted));
            }));
}

// GET /v1/jobs/{id}/artifacts/{path}: one artifact the result lists.
// With a forwarder, one held by another node comes from that node.
StatusOr<Answer> ArtifactAnswer(jobs::JobService& service, OwnerForwarder* forwarder,
                                const auth::Principal& p, const httplib::Request& req) {
  const config::Config& config = service.config();
  auto rec = service.Get(req.matches[1], p.tenant);
  if (!rec.ok()) return rec.status();
  std::string path = req.matches[2];
  // The result's list is the contract: only what it names is served.
  json result = json::parse(rec->result_json, nullptr, /*allow_exceptions=*/false);
  bool listed = false;
  if (result.is_object() && result.contains("artifacts") && result["artifacts"].is_array()) {
    for (const auto& a : result["artifacts"]) {
      if (a.is_object() && a.value("path", "") == path) listed = true;
    }
  }
  auto missing = NotFoundError(
      "job " + rec->id + " has no artifact '" + SanitizeUtf8(path.substr(0, 256)) + "'",
      "artifact_not_found");
  if (!listed) return missing;
  if (forwarder != nullptr) {
    CR_ASSIGN_OR_RETURN(std::optional<Answer> relayed,
                        forwarder->ForArtifact(rec->owner, rec->id, path, req));
    if (relayed) return std::move(*relayed);
  }
  auto fd = isolation::OpenTreeFile(config.artifacts.dir + "/" + rec->id, path);
  if (!fd.ok()) return fd.status().code() == StatusCode::kNotFound ? missing : fd.status();
  return Answer::File(std::move(*fd), path, InternalError("stat artifact"));
}

// GET /v1/jobs/{id}/events: Server-Sent Events until the job ends.
StatusOr<Answer> EventsAnswer(jobs::JobService& service, const AuthAdapter& auth,
                              const std::shared_ptr<FinalRecords>& finals, const auth::Principal& p,
                              const httplib::Request& req) {
  std::string id = req.matches[1];
  std::string tenant = p.tenant;
  auto rec = service.Get(id, tenant);
  if (!rec.ok()) return rec.status();
  auto channel = service.Channel(id);
  // A live stream holds a long-request slot for as long as it lasts (the
  // provider owns it); a finished job's stream ends at once.
  std::shared_ptr<auth::LongRequestLimiter::Lease> slot;
  if (channel) {
    CR_ASSIGN_OR_RETURN(slot, auth.HoldLongRequest(p));
  }
  auto stream = std::make_shared<JobEventStream>(service, *finals, id, tenant, std::move(channel));
  return Answer::Stream(
             "text/event-stream",
             [stream, slot](size_t, httplib::DataSink& sink) { return stream->WriteNext(sink); })
      .WithHeader("Cache-Control", "no-cache");
}

}  // namespace

void RegisterJobRoutes(RouteTable& http, jobs::JobService& service, const AuthAdapter& auth,
                       OwnerForwarder* forwarder) {
  RegisterSubmitRoutes(http, service, auth);
  RegisterJobRecordRoutes(http, service, auth);

  http.Get(JobPath("/artifacts/(.+)"),
           auth.Wrap([&service, forwarder](const auth::Principal& p, const httplib::Request& req) {
             return ArtifactAnswer(service, forwarder, p, req);
           }));

  // Shared by every /events stream; lives as long as the routes.
  auto finals = std::make_shared<FinalRecords>();
  http.Get(JobPath("/events"), auth.Wrap([&service, auth, finals](const auth::Principal& p,
                                                                  const httplib::Request& req) {
    return EventsAnswer(service, auth, finals, p, req);
  }));
}

}  // namespace coderunner::api
