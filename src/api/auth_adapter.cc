#include "auth_adapter.h"

#include <utility>

#include "authorize.h"

namespace coderunner::api {

void AuthAdapter::Serve(const httplib::Request& req, httplib::Response& res,
                        const Admission& admission,
                        const std::function<StatusOr<Answer>(const auth::Principal&)>& call) const {
  auto who = Authorize(req, res, admission.caller, *deps_.authenticator, *deps_.limiter,
                       *deps_.metrics, write_error_);
  if (!who) return;
  StatusOr<Answer> answer = call(*who);
  if (!answer.ok()) return write_error_(res, answer.status());
  WriteAnswer(res, std::move(*answer));
}

AdmittedHandler AuthAdapter::Wrap(Handler handler) const {
  return [self = *this, handler = std::move(handler)](const httplib::Request& req,
                                                      httplib::Response& res, const nlohmann::json&,
                                                      const Admission& admission) {
    self.Serve(req, res, admission, [&](const auth::Principal& who) { return handler(who, req); });
  };
}

AdmittedHandler AuthAdapter::WrapJson(JsonHandler handler) const {
  return [self = *this, handler = std::move(handler)](
             const httplib::Request& req, httplib::Response& res, const nlohmann::json& body,
             const Admission& admission) {
    self.Serve(req, res, admission,
               [&](const auth::Principal& who) { return handler(who, req, body); });
  };
}

httplib::Server::Handler AuthAdapter::Open(OpenHandler handler) const {
  return [write_error = write_error_, handler = std::move(handler)](const httplib::Request& req,
                                                                    httplib::Response& res) {
    StatusOr<Answer> answer = handler(req);
    if (!answer.ok()) return write_error(res, answer.status());
    WriteAnswer(res, std::move(*answer));
  };
}

StatusOr<std::shared_ptr<auth::LongRequestLimiter::Lease>> AuthAdapter::HoldLongRequest(
    const auth::Principal& who) const {
  return api::HoldLongRequest(who, *deps_.long_requests, *deps_.config, *deps_.metrics);
}

}  // namespace coderunner::api
