// What one EgressProxy's connections share: the policy, the byte budget, the
// log, and the threads serving them. Internal to src/egress.
#ifndef CODERUNNER_EGRESS_PROXY_SHARED_H_
#define CODERUNNER_EGRESS_PROXY_SHARED_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "coderunner/egress/egress_proxy.h"

namespace coderunner::egress {

struct EgressProxy::Shared {
  EgressPolicy policy;
  int wake = -1;  // The proxy's eventfd: readable once it is finishing.
  std::atomic<int64_t> bytes{0};
  std::mutex mu;
  int active = 0;  // Connections being served; guarded.
  EgressLog log;   // Guarded.
  // The threads serving connections, by id, and the ids of those that
  // ended, joined at the next accept. Guarded.
  std::map<uint64_t, std::thread> threads;
  std::vector<uint64_t> ended;
  uint64_t next_thread = 0;

  // Appends `r` to the log, or counts it past max_log_entries.
  void Record(EgressRecord r);
  // Takes up to `n` bytes from the job's budget: how many may go.
  int64_t Take(int64_t n);
  // Joins the threads whose connections ended.
  void JoinEnded();
};

// Serves one accepted connection (non-blocking `client`, closed on return)
// to its end; logs it unless it closed before sending anything (a probe).
void ServeConnection(int client, EgressProxy::Shared& shared);

}  // namespace coderunner::egress

#endif  // CODERUNNER_EGRESS_PROXY_SHARED_H_
