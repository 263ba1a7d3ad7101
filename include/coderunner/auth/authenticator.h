// Authenticator: maps a request's bearer key to a tenant and its tier.
#ifndef CODERUNNER_AUTH_AUTHENTICATOR_H_
#define CODERUNNER_AUTH_AUTHENTICATOR_H_

#include <string>
#include <string_view>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"

namespace coderunner::auth {

// A request without a valid API key (401).
inline constexpr char kReasonUnauthenticated[] = "unauthenticated";
// The caller's tier does not allow what it asked for (403).
inline constexpr char kReasonForbidden[] = "forbidden";

// Who is calling. Points into the Config the Authenticator was built with.
struct Principal {
  std::string tenant;
  const config::TierConfig* tier = nullptr;
  // May call the admin routes (GET /v1/nodes): its key has admin: true, or
  // auth.mode is none (every caller is trusted then).
  bool admin = false;
};

// Keys are stored only as SHA-256 hashes; the presented key is hashed and
// compared in constant time against every configured hash. Immutable after
// construction; thread-safe.
class Authenticator {
 public:
  // `config` must outlive the Authenticator.
  explicit Authenticator(const config::Config& config) : config_(config) {}
  virtual ~Authenticator() = default;

  // `authorization` is the Authorization header value ("" if absent). In
  // mode none, always the configured local tenant. Otherwise a missing,
  // malformed or unknown key is Unauthenticated: InvalidArgument with reason
  // "unauthenticated" (the HTTP layer answers 401). Virtual so that a test
  // can watch the calls.
  virtual StatusOr<Principal> Authenticate(std::string_view authorization) const;

  bool enabled() const { return config_.auth.mode != "none"; }

 private:
  const config::Config& config_;
};

}  // namespace coderunner::auth

#endif  // CODERUNNER_AUTH_AUTHENTICATOR_H_
