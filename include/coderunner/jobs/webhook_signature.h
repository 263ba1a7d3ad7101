// Webhook signatures: every delivery carries
//   X-Coderunner-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(key, "<t>.<body>")>
// where `key` is the receiving tenant's webhook key, derived from the
// service's webhook secret. A receiver recomputes the HMAC over the exact
// body bytes, compares in constant time and refuses old timestamps (the
// timestamp is signed, so a captured delivery cannot be replayed later).
// docs/api.md, Verifying a webhook, shows how.
#ifndef CODERUNNER_JOBS_WEBHOOK_SIGNATURE_H_
#define CODERUNNER_JOBS_WEBHOOK_SIGNATURE_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"

namespace coderunner::jobs {

inline constexpr const char* kWebhookSignatureHeader = "X-Coderunner-Signature";

// The key `tenant`'s deliveries are signed with: the lower-case hex of
// HMAC-SHA256(secret, "coderunner-webhook-key:" + tenant), 64 characters,
// used as the HMAC key as those ASCII characters. Distinct per tenant, so
// that the key one tenant holds cannot sign another tenant's deliveries.
// Pure; thread-safe.
std::string WebhookTenantKey(std::string_view secret, std::string_view tenant);

// The X-Coderunner-Signature value for `body` sent at `unix_s` (seconds
// since the epoch) under `tenant_key`: "t=<unix_s>,v1=<64 hex>". Pure;
// thread-safe.
std::string WebhookSignature(std::string_view tenant_key, int64_t unix_s, std::string_view body);

// The service's webhook secret: the value of the environment variable
// `webhooks.secret_env` names when it names one (FailedPrecondition
// "webhook_secret_missing" if that variable is unset or empty); otherwise
// the contents of <data_dir>/webhook_secret, which is created (mode 0600,
// 32 random bytes as 64 hex characters) when missing. Internal errors for
// a file that cannot be read or created, or is empty.
StatusOr<std::string> LoadWebhookSecret(const config::WebhooksConfig& webhooks,
                                        const std::string& data_dir);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_WEBHOOK_SIGNATURE_H_
