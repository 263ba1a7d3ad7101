#include "coderunner/auth/authenticator.h"

#include "coderunner/common/constant_time.h"
#include "coderunner/common/sha256.h"

namespace coderunner::auth {
namespace {

Status Unauthenticated(const std::string& why) {
  return InvalidArgumentError(why, kReasonUnauthenticated);
}

}  // namespace

StatusOr<Principal> Authenticator::Authenticate(std::string_view authorization) const {
  if (!enabled()) {
    return Principal{config_.auth.none_tenant, config_.FindTier(config_.auth.none_tier), true};
  }
  constexpr std::string_view kBearer = "Bearer ";
  if (authorization.empty()) {
    return Unauthenticated("missing API key: send Authorization: Bearer <key>");
  }
  if (authorization.size() <= kBearer.size() ||
      authorization.substr(0, kBearer.size()) != kBearer) {
    return Unauthenticated("malformed Authorization header: expected Bearer <key>");
  }
  std::string hash = Sha256Hex(authorization.substr(kBearer.size()));
  const config::ApiKeyConfig* match = nullptr;
  for (const auto& k : config_.auth.keys) {
    // Check every key, so timing does not depend on which one matched.
    if (ConstantTimeEqual(hash, k.key_sha256) && match == nullptr) match = &k;
  }
  if (match == nullptr) return Unauthenticated("invalid API key");
  return Principal{match->tenant, config_.FindTier(match->tier), match->admin};
}

}  // namespace coderunner::auth
