// RouteTable: registers routes on cpp-httplib and remembers each one, so the
// set of routes the server serves can be listed (GET /openapi.json is
// checked against it).
#ifndef CODERUNNER_API_ROUTE_TABLE_H_
#define CODERUNNER_API_ROUTE_TABLE_H_

#include <httplib.h>

#include <string>
#include <vector>

namespace coderunner::api {

// One registered route.
struct Route {
  std::string method;   // "GET", "POST", "DELETE".
  std::string pattern;  // As given to httplib, e.g. "/v1/jobs/(job-[0-9a-f]{24})".
  std::string path;     // As an OpenAPI template, e.g. "/v1/jobs/{id}".
};

// The OpenAPI path template of an httplib pattern: a capture group matching
// anything ("(.+)" or "(.*)") becomes {path}, any other group {id}.
std::string OpenApiPath(const std::string& pattern);

// Forwards Get/Post/Delete to `http` (which must outlive it) and records
// the route. Not thread-safe: register everything before serving.
class RouteTable {
 public:
  explicit RouteTable(httplib::Server& http) : http_(http) {}

  RouteTable& Get(const std::string& pattern, httplib::Server::Handler handler);
  RouteTable& Post(const std::string& pattern, httplib::Server::Handler handler);
  RouteTable& Delete(const std::string& pattern, httplib::Server::Handler handler);

  // Every route registered so far, in registration order.
  const std::vector<Route>& routes() const { return routes_; }

 private:
  void Record(const char* method, const std::string& pattern);

  httplib::Server& http_;
  std::vector<Route> routes_;
};

}  // namespace coderunner::api

#endif  // CODERUNNER_API_ROUTE_TABLE_H_
