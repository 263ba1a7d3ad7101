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

httplib::Server::Handler WithoutAdmission(AdmittedHandler handler) {
  return [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res) {
    handler(req, res, nlohmann::json(), Admission{});
  };
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

// `handler`, which reads neither the body nor the admission.
AdmittedHandler Plain(httplib::Server::Handler handler) {
  return [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res,
                                        const nlohmann::json&,
                                        const Admission&) { handler(req, res); };
}

// `handler`, which reads the body but not the admission.
AdmittedHandler BodyOnly(BodyHandler handler) {
  return [handler = std::move(handler)](const httplib::Request& req, httplib::Response& res,
                                        const nlohmann::json& body,
                                        const Admission&) { handler(req, res, body); };
}

}  // namespace

RouteTable::RouteTable(httplib::Server& http, BodyPolicy policy)
    : http_(http), policy_(std::move(policy)) {}

RouteTable& RouteTable::Get(const std::string& pattern, httplib::Server::Handler handler) {
  http_.Get(pattern, Handling(std::move(handler)));
  Record("GET", pattern, false);
  return *this;
}

RouteTable& RouteTable::Get(const std::string& pattern, AdmittedHandler handler) {
  return Get(pattern, WithoutAdmission(std::move(handler)));
}

RouteTable& RouteTable::Post(const std::string& pattern, httplib::Server::Handler handler) {
  return Post(pattern, Plain(std::move(handler)));
}

RouteTable& RouteTable::Post(const std::string& pattern, BodyHandler handler) {
  return Post(pattern, BodyOnly(std::move(handler)));
}

RouteTable& RouteTable::Post(const std::string& pattern, AdmittedHandler handler) {
  http_.Post(pattern, Handling(CheckBody(std::move(handler))));
  Record("POST", pattern, true);
  return *this;
}

RouteTable& RouteTable::PostRaw(const std::string& pattern, httplib::Server::Handler handler) {
  http_.Post(pattern, Handling(std::move(handler)));
  Record("POST", pattern, true);
  return *this;
}

RouteTable& RouteTable::DeleteRaw(const std::string& pattern, httplib::Server::Handler handler) {
  http_.Delete(pattern, Handling(std::move(handler)));
  Record("DELETE", pattern, true);
  return *this;
}

RouteTable& RouteTable::Delete(const std::string& pattern, httplib::Server::Handler handler) {
  return Delete(pattern, Plain(std::move(handler)));
}

RouteTable& RouteTable::Delete(const std::string& pattern, BodyHandler handler) {
  return Delete(pattern, BodyOnly(std::move(handler)));
}

RouteTable& RouteTable::Delete(const std::string& pattern, AdmittedHandler handler) {
  http_.Delete(pattern, Handling(CheckBody(std::move(handler))));
  Record("DELETE", pattern, true);
  return *this;
}

httplib::Server::Handler RouteTable::CheckBody(AdmittedHandler handler) const {
  return [handler = std::move(handler), policy = policy_](const httplib::Request& req,
                                                          httplib::Response& res) {
    Admission admission;
    if (req.body.empty()) return handler(req, res, nlohmann::json(), admission);
    if (policy.admit && !policy.admit(req, res, admission)) return;
    auto body = ParseBoundedJson(req.body, policy.bounds);
    if (!body.ok()) return policy.reply_error(req, res, body.status().WithContext("request body"));
    handler(req, res, *body, admission);
  };
}

void RouteTable::Record(const char* method, const std::string& pattern, bool body) {
  routes_.push_back({method, pattern, OpenApiPath(pattern), body});
}

}  // namespace coderunner::api
