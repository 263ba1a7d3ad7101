// JobServiceImpl::WaitMany: one request waits on several jobs (any or all).
#include <algorithm>
#include <chrono>

#include "job_service_impl.h"

namespace coderunner::jobs {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::chrono::milliseconds kStrayChannelPause{50};

bool Satisfied(const std::vector<store::JobRecord>& records, bool all) {
  size_t terminal = 0;
  for (const auto& r : records) terminal += store::IsTerminal(r.status) ? 1 : 0;
  return all ? terminal == records.size() : terminal > 0;
}

}  // namespace

StatusOr<std::vector<store::JobRecord>> JobServiceImpl::WaitMany(
    const std::vector<std::string>& ids, const std::string& tenant, bool all,
    std::chrono::milliseconds timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    std::vector<store::JobRecord> records;
    records.reserve(ids.size());
    for (const std::string& id : ids) {
      CR_ASSIGN_OR_RETURN(store::JobRecord rec, deps_.store->Get(id, tenant));
      records.push_back(std::move(rec));
    }
    if (Satisfied(records, all) || Clock::now() >= deadline) return records;
    // Each job still to come has a channel here (Follow: a fleet node opens
    // one for a job of another node) and Finish ends it: the records are read
    // again only once a channel of ours is gone, not on every job's end.
    std::vector<std::string> pending;
    for (const auto& r : records) {
      if (store::IsTerminal(r.status)) continue;
      (void)dispatch_->Follow(r.id);
      pending.push_back(r.id);
    }
    auto any_gone = [&] {
      for (const std::string& id : pending) {
        if (deps_.hub->Find(id) == nullptr) return true;
      }
      return false;
    };
    if (any_gone()) {
      // Not terminal, yet no channel (its end is being recorded, or a
      // requeue is under way): look again shortly rather than spin.
      deps_.hub->WaitFinishAfter(deps_.hub->finished(),
                                 std::min(deadline, Clock::now() + kStrayChannelPause));
      continue;
    }
    for (;;) {
      const uint64_t seen = deps_.hub->finished();
      if (any_gone() || !deps_.hub->WaitFinishAfter(seen, deadline)) break;
    }
  }
}

}  // namespace coderunner::jobs
