#include "volumes_routes.h"

#include <httplib.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "authorize.h"
#include "coderunner/wire/job_json.h"
#include "http_reply.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

json VolumeJson(const volumes::Volume& v) {
  return {{"id", v.id},
          {"name", v.name.empty() ? json(nullptr) : json(v.name)},
          {"size_bytes", v.size_bytes},
          {"created_at", wire::Rfc3339(v.created_at_ms)}};
}

json FilesJson(const isolation::TreeListing& listing) {
  json files = json::array();
  for (const auto& f : listing.files) {
    files.push_back({{"path", f.path},
                     {"size", f.size},
                     {"disk_bytes", f.allocated_bytes},
                     {"modified_at", wire::Rfc3339(f.modified_ms)}});
  }
  return files;
}

}  // namespace

void RegisterVolumeRoutes(RouteTable& http, volumes::VolumeService& service,
                          MetricsRegistry& metrics, const auth::Authenticator& authenticator,
                          auth::RateLimiter& limiter) {
  auto who = [&authenticator, &limiter, &metrics](const httplib::Request& req,
                                                  httplib::Response& res) {
    return Authorize(req, res, authenticator, limiter, metrics);
  };
  const std::string id_re = "(vol-[0-9a-f]{24})";

  http.Post("/v1/volumes", [&service, who](const httplib::Request& req, httplib::Response& res) {
    auto p = who(req, res);
    if (!p) return;
    auto v = service.Create(p->tenant, p->tier, req.body);
    if (!v.ok()) return ReplyError(res, v.status());
    json j = VolumeJson(*v);
    j["used_bytes"] = 0;
    Reply(res, 201, j);
  });

  http.Get("/v1/volumes", [&service, who](const httplib::Request& req, httplib::Response& res) {
    auto p = who(req, res);
    if (!p) return;
    auto list = service.List(p->tenant);
    if (!list.ok()) return ReplyError(res, list.status());
    json out = json::array();
    for (const auto& v : *list) out.push_back(VolumeJson(v));
    Reply(res, 200, {{"volumes", out}});
  });

  http.Get("/v1/volumes/" + id_re,
           [&service, who](const httplib::Request& req, httplib::Response& res) {
             auto p = who(req, res);
             if (!p) return;
             auto v = service.Get(p->tenant, req.matches[1]);
             if (!v.ok()) return ReplyError(res, v.status());
             json j = VolumeJson(*v);
             auto files = service.ListFiles(*v);
             if (files.ok()) {
               j["used_bytes"] = files->used_bytes;
               j["files"] = files->files.size();
             }
             Reply(res, 200, j);
           });

  http.Delete("/v1/volumes/" + id_re,
              [&service, who](const httplib::Request& req, httplib::Response& res) {
                auto p = who(req, res);
                if (!p) return;
                std::string id = req.matches[1];
                Status s = service.Delete(p->tenant, id);
                if (!s.ok()) return ReplyError(res, s);
                Reply(res, 200, {{"id", id}, {"deleted", true}});
              });

  http.Get("/v1/volumes/" + id_re + "/files",
           [&service, who](const httplib::Request& req, httplib::Response& res) {
             auto p = who(req, res);
             if (!p) return;
             auto v = service.Get(p->tenant, req.matches[1]);
             if (!v.ok()) return ReplyError(res, v.status());
             auto files = service.ListFiles(*v);
             if (!files.ok()) return ReplyError(res, files.status());
             Reply(res, 200,
                   {{"id", v->id},
                    {"files", FilesJson(*files)},
                    {"used_bytes", files->used_bytes},
                    {"size_bytes", v->size_bytes},
                    {"truncated", files->truncated}});
           });

  http.Get("/v1/volumes/" + id_re + "/files/(.+)",
           [&service, who](const httplib::Request& req, httplib::Response& res) {
             auto p = who(req, res);
             if (!p) return;
             auto v = service.Get(p->tenant, req.matches[1]);
             if (!v.ok()) return ReplyError(res, v.status());
             auto fd = service.OpenFile(*v, req.matches[2]);
             if (!fd.ok()) return ReplyError(res, fd.status());
             struct stat st;
             if (fstat(fd->get(), &st) != 0) {
               return ReplyError(res, InternalError("stat volume file", "volume_io"));
             }
             ReplyFile(res, fd->Release(), st.st_size, "application/octet-stream");
           });
}

}  // namespace coderunner::api
