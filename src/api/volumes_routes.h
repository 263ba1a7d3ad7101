// The /v1/volumes routes.
#ifndef CODERUNNER_API_VOLUMES_ROUTES_H_
#define CODERUNNER_API_VOLUMES_ROUTES_H_

#include "auth_adapter.h"
#include "coderunner/api/route_table.h"
#include "coderunner/config/config.h"
#include "coderunner/volumes/volume_service.h"

namespace coderunner::api {

// Registers on `http`:
//   POST   /v1/volumes                    {"name"?,"size_bytes"} -> 201 the volume
//   GET    /v1/volumes                    {"volumes":[...]}
//   GET    /v1/volumes/{id}               the volume, with used_bytes and files
//   DELETE /v1/volumes/{id}               200 {"id","deleted":true}; 409 while in use
//   GET    /v1/volumes/{id}/files         {"files":[{path,size,modified_at}],...}
//   GET    /v1/volumes/{id}/files/{path}  the file's bytes
// Authenticated and tenant-scoped like the job routes (another tenant's
// volume is 404), each handler wrapped by `auth`. The body is parsed here
// (volume_request.h) within server.max_json_depth of `config`. `service`
// and `config` must outlive `http`.
void RegisterVolumeRoutes(RouteTable& http, volumes::VolumeService& service,
                          const config::Config& config, const AuthAdapter& auth);

}  // namespace coderunner::api

#endif  // CODERUNNER_API_VOLUMES_ROUTES_H_
