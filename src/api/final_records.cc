#include "final_records.h"

#include <iterator>

namespace coderunner::api {

StatusOr<std::shared_ptr<const store::JobRecord>> FinalRecords::Get(const std::string& id,
                                                                    const std::string& tenant,
                                                                    const Fetch& fetch) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto it = held_.begin(); it != held_.end();) {
    it = it->second.expired() ? held_.erase(it) : std::next(it);
  }
  auto key = std::make_pair(id, tenant);
  if (auto it = held_.find(key); it != held_.end()) {
    if (auto held = it->second.lock()) return held;
  }
  CR_ASSIGN_OR_RETURN(store::JobRecord fetched, fetch());
  auto record = std::make_shared<const store::JobRecord>(std::move(fetched));
  held_[key] = record;
  return record;
}

}  // namespace coderunner::api
