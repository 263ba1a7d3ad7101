#include "volumes_routes.h"

#include <httplib.h>

#include <nlohmann/json.hpp>

#include "coderunner/wire/job_json.h"
#include "volume_request.h"

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
                          const config::Config& config, const AuthAdapter& auth) {
  const std::string id_re = "(vol-[0-9a-f]{24})";

  http.Post("/v1/volumes", auth.Wrap([&service, &config](
                                         const auth::Principal& p,
                                         const httplib::Request& req) -> StatusOr<Answer> {
    // A tier without volumes learns nothing about its body.
    CR_RETURN_IF_ERROR(volumes::CheckVolumesAllowed(p.tier));
    JsonBounds bounds;
    bounds.max_depth = config.server.max_json_depth;
    CR_ASSIGN_OR_RETURN(volumes::VolumeRequest request, ParseVolumeRequest(req.body, bounds));
    CR_ASSIGN_OR_RETURN(volumes::Volume v, service.Create(p.tenant, p.tier, request));
    json j = VolumeJson(v);
    j["used_bytes"] = 0;
    return Answer::Json(201, std::move(j));
  }));

  http.Get("/v1/volumes", auth.Wrap([&service](const auth::Principal& p,
                                               const httplib::Request&) -> StatusOr<Answer> {
    CR_ASSIGN_OR_RETURN(std::vector<volumes::Volume> list, service.List(p.tenant));
    json out = json::array();
    for (const auto& v : list) out.push_back(VolumeJson(v));
    return Answer::Json(200, {{"volumes", out}});
  }));

  http.Get("/v1/volumes/" + id_re,
           auth.Wrap([&service](const auth::Principal& p,
                                const httplib::Request& req) -> StatusOr<Answer> {
             CR_ASSIGN_OR_RETURN(volumes::Volume v, service.Get(p.tenant, req.matches[1]));
             json j = VolumeJson(v);
             auto files = service.ListFiles(v);
             if (files.ok()) {
               j["used_bytes"] = files->used_bytes;
               j["files"] = files->files.size();
             }
             return Answer::Json(200, std::move(j));
           }));

  http.Delete("/v1/volumes/" + id_re,
              auth.Wrap([&service](const auth::Principal& p,
                                   const httplib::Request& req) -> StatusOr<Answer> {
                std::string id = req.matches[1];
                CR_RETURN_IF_ERROR(service.Delete(p.tenant, id));
                return Answer::Json(200, {{"id", id}, {"deleted", true}});
              }));

  http.Get("/v1/volumes/" + id_re + "/files",
           auth.Wrap([&service](const auth::Principal& p,
                                const httplib::Request& req) -> StatusOr<Answer> {
             CR_ASSIGN_OR_RETURN(volumes::Volume v, service.Get(p.tenant, req.matches[1]));
             CR_ASSIGN_OR_RETURN(isolation::TreeListing files, service.ListFiles(v));
             return Answer::Json(200, {{"id", v.id},
                                       {"files", FilesJson(files)},
                                       {"used_bytes", files.used_bytes},
                                       {"size_bytes", v.size_bytes},
                                       {"truncated", files.truncated}});
           }));

  http.Get("/v1/volumes/" + id_re + "/files/(.+)",
           auth.Wrap([&service](const auth::Principal& p,
                                const httplib::Request& req) -> StatusOr<Answer> {
             CR_ASSIGN_OR_RETURN(volumes::Volume v, service.Get(p.tenant, req.matches[1]));
             CR_ASSIGN_OR_RETURN(isolation::UniqueFd fd, service.OpenFile(v, req.matches[2]));
             return Answer::File(std::move(fd), req.matches[2].str(),
                                 InternalError("stat volume file", "volume_io"));
           }));
}

}  // namespace coderunner::api
