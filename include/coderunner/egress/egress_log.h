// EgressLog: what a job's or sandbox's egress proxy (egress_proxy.h) did,
// request by request: plain values, for results and records.
#ifndef CODERUNNER_EGRESS_EGRESS_LOG_H_
#define CODERUNNER_EGRESS_EGRESS_LOG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace coderunner::egress {

// Outcomes of one request.
inline constexpr char kOutcomeOk[] = "ok";                           // Relayed to its end.
inline constexpr char kOutcomeRefusedHost[] = "refused_host";        // Not in the allowlist.
inline constexpr char kOutcomeRefusedAddress[] = "refused_address";  // Resolved to a private one.
inline constexpr char kOutcomeResolveFailed[] = "resolve_failed";
inline constexpr char kOutcomeConnectFailed[] = "connect_failed";
inline constexpr char kOutcomeByteLimit[] = "byte_limit";      // The job's bytes ran out.
inline constexpr char kOutcomeIdleTimeout[] = "idle_timeout";  // Silent both ways too long.
inline constexpr char kOutcomeTooMany[] = "too_many_connections";
inline constexpr char kOutcomeBadRequest[] = "bad_request";
inline constexpr char kOutcomeJobEnded[] = "job_ended";  // Still open when the job ended.

// One request through the proxy.
struct EgressRecord {
  std::string method;  // "CONNECT", "GET", ...; "" when the head was unreadable.
  std::string host;
  int port = 0;
  std::string address;    // The address connected to; "" if none.
  int64_t bytes_out = 0;  // From the job (after the head).
  int64_t bytes_in = 0;   // To the job.
  std::string outcome;    // kOutcome*.
  std::string detail;     // Why, for a refusal or failure.
  int64_t duration_ms = 0;
};

struct EgressLog {
  std::vector<EgressRecord> requests;  // In the order they ended.
  int64_t dropped = 0;                 // Requests past max_log_entries.
  int64_t bytes = 0;                   // Relayed both ways, all requests.
};

}  // namespace coderunner::egress

#endif  // CODERUNNER_EGRESS_EGRESS_LOG_H_
