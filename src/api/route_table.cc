#include "coderunner/api/route_table.h"

#include <utility>

#include "coderunner/api/connection_guard.h"

namespace coderunner::api {

std::string OpenApiPath(const std::string& pattern) {
  std::string out;
  size_t i = 0;
  while (i < pattern.size()) {
    if (pattern[i] != '(') {
      out.push_back(pattern[i++]);
      continue;
    }
    // Our patterns never nest groups; the group ends at the next ')'.
    size_t close = pattern.find(')', i);
    if (close == std::string::npos) return out + pattern.substr(i);
    std::string group = pattern.substr(i, close + 1 - i);
    out += (group == "(.+)" || group == "(.*)") ? "{path}" : "{id}";
    i = close + 1;
  }
  return out;
}

namespace {

// The request is read: from here on its connection is being handled (no
// read deadline, not waiting; see connection_guard.h).
httplib::Server::Handler Handling(httplib::Server::Handler handler) {
  return [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    ConnectionGuard::MarkHandling();
    handler(req, res);
  };
}

}  // namespace

RouteTable& RouteTable::Get(const std::string& pattern, httplib::Server::Handler handler) {
  http_.Get(pattern, Handling(std::move(handler)));
  Record("GET", pattern);
  return *this;
}

RouteTable& RouteTable::Post(const std::string& pattern, httplib::Server::Handler handler) {
  http_.Post(pattern, Handling(std::move(handler)));
  Record("POST", pattern);
  return *this;
}

RouteTable& RouteTable::Delete(const std::string& pattern, httplib::Server::Handler handler) {
  http_.Delete(pattern, Handling(std::move(handler)));
  Record("DELETE", pattern);
  return *this;
}

void RouteTable::Record(const char* method, const std::string& pattern) {
  routes_.push_back({method, pattern, OpenApiPath(pattern)});
}

}  // namespace coderunner::api
