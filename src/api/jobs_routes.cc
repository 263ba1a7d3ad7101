#include "jobs_routes.h"

#include <httplib.h>
#include <sys/stat.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "authorize.h"
#include "coderunner/common/utf8.h"
#include "coderunner/isolation/safe_tree.h"
#include "coderunner/wire/job_json.h"
#include "coderunner/wire/job_submission.h"
#include "http_reply.h"
#include "job_event_stream.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

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

}  // namespace

void RegisterJobRoutes(RouteTable& http, jobs::JobService& service, MetricsRegistry& metrics,
                       const auth::Authenticator& authenticator, auth::RateLimiter& limiter,
                       auth::LongRequestLimiter& long_requests) {
  const config::Config& config = *service.context().config;
  // Captured by every /v1 handler: authenticate, rate-limit, then act.
  auto who = [&authenticator, &limiter, &metrics](const httplib::Request& req,
                                                  httplib::Response& res) {
    return Authorize(req, res, authenticator, limiter, metrics);
  };
  // Captured by the handlers that wait for a job: one of the tenant's
  // long-request slots, or a 429 written to `res` (nullptr).
  auto hold = [&long_requests, &config, &metrics](httplib::Response& res,
                                                  const auth::Principal& p) {
    return HoldLongRequest(res, p, long_requests, config, metrics);
  };

  // The body as the route table parsed it, read once into a submission (an
  // empty body, passed on as null, is parsed for its "invalid_json").
  auto parse = [&service](const httplib::Request& req, const json& body) {
    return req.body.empty() ? wire::ParseJobSubmission(req.body, service.submission_rules())
                            : wire::JobSubmissionFromJson(body, service.submission_rules());
  };

  http.Post("/v1/execute", [&service, who, hold, parse](const httplib::Request& req,
                                                        httplib::Response& res, const json& body) {
    auto p = who(req, res);
    if (!p) return;
    auto slot = hold(res, *p);
    if (!slot) return;
    auto submission = parse(req, body);
    if (!submission.ok()) return ReplyError(res, submission.status());
    auto result = service.Execute(p->tenant, std::move(*submission), p->tier);
    if (!result.ok()) return ReplyError(res, result.status());
    ReplyRaw(res, 200, result->result_json);
  });

  http.Post("/v1/jobs", [&service, who, parse](const httplib::Request& req, httplib::Response& res,
                                               const json& body) {
    auto p = who(req, res);
    if (!p) return;
    auto submission = parse(req, body);
    if (!submission.ok()) return ReplyError(res, submission.status());
    auto accepted = service.Submit(p->tenant, std::move(*submission), p->tier);
    if (!accepted.ok()) return ReplyError(res, accepted.status());
    Reply(res, 202, AcceptedJson(*accepted));
  });

  // The body arrives parsed within server.max_json_depth (RouteTable), so
  // dumping each entry below is bounded.
  http.Post("/v1/jobs/batch", [&service, &config, who](const httplib::Request& req,
                                                       httplib::Response& res, const json& body) {
    auto p = who(req, res);
    if (!p) return;
    if (!body.is_object() || !body.contains("jobs") || !body.at("jobs").is_array()) {
      return ReplyError(res,
                        InvalidArgumentError("body must be {\"jobs\":[...]}", "invalid_request"));
    }
    const json& jobs = body.at("jobs");
    if (jobs.empty() || jobs.size() > static_cast<size_t>(config.jobs.max_batch)) {
      return ReplyError(
          res, InvalidArgumentError(
                   "jobs: must hold 1 to " + std::to_string(config.jobs.max_batch) + " entries",
                   "invalid_request"));
    }
    std::vector<StatusOr<wire::JobSubmission>> entries;
    for (const auto& j : jobs) {
      entries.push_back(wire::JobSubmissionFromJson(j, service.submission_rules()));
    }
    json out = json::array();
    for (auto& r : service.SubmitBatch(p->tenant, std::move(entries), p->tier)) {
      out.push_back(
          r.ok() ? AcceptedJson(*r)
                 : json{{"error",
                         {{"code", r.status().reason()}, {"message", r.status().message()}}}});
    }
    Reply(res, 202, {{"jobs", out}});
  });

  http.Get("/v1/jobs", [&service, who](const httplib::Request& req, httplib::Response& res) {
    auto p = who(req, res);
    if (!p) return;
    store::ListFilter filter;
    filter.tenant = p->tenant;
    if (req.has_param("status")) {
      auto st = store::ParseJobStatus(req.get_param_value("status"));
      if (!st) {
        return ReplyError(res, InvalidArgumentError("status: unknown status", "invalid_request"));
      }
      filter.status = *st;
    }
    auto limit = IntParam(req, "limit", 50, 1, 500);
    if (!limit.ok()) return ReplyError(res, limit.status());
    filter.limit = static_cast<int>(*limit);
    if (req.has_param("cursor")) filter.cursor = req.get_param_value("cursor");
    auto page = service.List(filter);
    if (!page.ok()) return ReplyError(res, page.status());
    json jobs_json = json::array();
    for (const auto& r : page->jobs) jobs_json.push_back(wire::JobSummaryJson(r));
    Reply(res, 200,
          {{"jobs", jobs_json},
           {"next_cursor", page->next_cursor.empty() ? json(nullptr) : json(page->next_cursor)}});
  });

  const std::string id_re = "(job-[0-9a-f]{24})";

  http.Get("/v1/jobs/" + id_re,
           [&service, who](const httplib::Request& req, httplib::Response& res) {
             auto p = who(req, res);
             if (!p) return;
             auto rec = service.Get(req.matches[1], p->tenant);
             if (!rec.ok()) return ReplyError(res, rec.status());
             Reply(res, 200, wire::JobToJson(*rec));
           });

  http.Get("/v1/jobs/" + id_re + "/wait",
           [&service, &config, who, hold](const httplib::Request& req, httplib::Response& res) {
             auto p = who(req, res);
             if (!p) return;
             auto timeout = IntParam(req, "timeout_s", 30, 0, config.jobs.max_wait_s);
             if (!timeout.ok()) return ReplyError(res, timeout.status());
             auto now = service.Get(req.matches[1], p->tenant);
             if (!now.ok()) return ReplyError(res, now.status());
             // Only a wait that may last holds a long-request slot.
             std::shared_ptr<auth::LongRequestLimiter::Lease> slot;
             if (!store::IsTerminal(now->status) && *timeout > 0) {
               slot = hold(res, *p);
               if (!slot) return;
             }
             auto rec = service.Wait(req.matches[1], p->tenant, std::chrono::seconds(*timeout));
             if (!rec.ok()) return ReplyError(res, rec.status());
             Reply(res, store::IsTerminal(rec->status) ? 200 : 202, wire::JobToJson(*rec));
           });

  http.Delete("/v1/jobs/" + id_re,
              [&service, who](const httplib::Request& req, httplib::Response& res) {
                auto p = who(req, res);
                if (!p) return;
                auto rec = service.Cancel(req.matches[1], p->tenant);
                if (!rec.ok()) return ReplyError(res, rec.status());
                Reply(res, 200, wire::JobToJson(*rec));
              });

  http.Post("/v1/jobs/" + id_re + "/replay",
            [&service, who](const httplib::Request& req, httplib::Response& res) {
              auto p = who(req, res);
              if (!p) return;
              auto accepted = service.Replay(req.matches[1], p->tenant, p->tier);
              if (!accepted.ok()) return ReplyError(res, accepted.status());
              Reply(res, 202, AcceptedJson(*accepted));
            });

  http.Get("/v1/jobs/" + id_re + "/artifacts/(.+)", [&service, &config, who](
                                                        const httplib::Request& req,
                                                        httplib::Response& res) {
    auto p = who(req, res);
    if (!p) return;
    auto rec = service.Get(req.matches[1], p->tenant);
    if (!rec.ok()) return ReplyError(res, rec.status());
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
    if (!listed) return ReplyError(res, missing);
    auto fd = isolation::OpenTreeFile(config.artifacts.dir + "/" + rec->id, path);
    if (!fd.ok())
      return ReplyError(res, fd.status().code() == StatusCode::kNotFound ? missing : fd.status());
    struct stat st;
    if (fstat(fd->get(), &st) != 0) return ReplyError(res, InternalError("stat artifact"));
    ReplyFile(res, fd->Release(), st.st_size, "application/octet-stream");
  });

  // Shared by every /events stream; lives as long as the routes.
  auto finals = std::make_shared<FinalRecords>();
  http.Get("/v1/jobs/" + id_re + "/events",
           [&service, who, hold, finals](const httplib::Request& req, httplib::Response& res) {
             auto p = who(req, res);
             if (!p) return;
             std::string id = req.matches[1];
             std::string tenant = p->tenant;
             auto rec = service.Get(id, tenant);
             if (!rec.ok()) return ReplyError(res, rec.status());
             auto channel = service.Channel(id);
             // A live stream holds a long-request slot for as long as it
             // lasts (the provider owns it); a finished job's stream ends at
             // once.
             std::shared_ptr<auth::LongRequestLimiter::Lease> slot;
             if (channel) {
               slot = hold(res, *p);
               if (!slot) return;
             }
             auto stream =
                 std::make_shared<JobEventStream>(service, *finals, id, tenant, std::move(channel));
             res.set_header("Cache-Control", "no-cache");
             res.set_chunked_content_provider("text/event-stream",
                                              [stream, slot](size_t, httplib::DataSink& sink) {
                                                return stream->WriteNext(sink);
                                              });
           });

  http.Get("/metrics", [&service, &metrics](const httplib::Request&, httplib::Response& res) {
    const auto& ctx = service.context();
    metrics.Set("coderunner_queue_depth", {}, static_cast<double>(ctx.queue->size()));
    if (ctx.webhooks != nullptr) {
      auto w = ctx.webhooks->stats();
      metrics.Set("coderunner_webhooks", {{"result", "delivered"}},
                  static_cast<double>(w.delivered));
      metrics.Set("coderunner_webhooks", {{"result", "failed"}}, static_cast<double>(w.failed));
      metrics.Set("coderunner_webhooks", {{"result", "dropped"}}, static_cast<double>(w.dropped));
    }
    res.status = 200;
    res.set_content(metrics.RenderPrometheus(), "text/plain; version=0.0.4");
  });
}

}  // namespace coderunner::api
