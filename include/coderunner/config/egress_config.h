// egress.*: the bounds of the egress proxy of a job with "network":
// "allowlist" (docs/egress.md). Where such a job may go is its tier's
// (TierConfig::egress_allow, egress_private).
#ifndef CODERUNNER_CONFIG_EGRESS_CONFIG_H_
#define CODERUNNER_CONFIG_EGRESS_CONFIG_H_

#include <cstdint>

namespace coderunner::config {

struct EgressConfig {
  int64_t max_bytes = 64LL << 20;     // Both ways, all requests of one job. Bytes; 64 MiB.
  int max_connections = 16;           // Open at once per job; more are refused. Count.
  int64_t connect_timeout_ms = 5000;  // To an allowed host. ms.
  int64_t idle_timeout_ms = 30000;    // A request silent both ways this long ends. ms.
  int max_log_entries = 200;          // Requests a job's record lists; more are counted. Count.
};

}  // namespace coderunner::config

#endif  // CODERUNNER_CONFIG_EGRESS_CONFIG_H_
