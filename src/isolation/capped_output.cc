#include "coderunner/isolation/capped_output.h"

#include <algorithm>
#include <utility>

namespace coderunner::isolation {

void CappedOutput::Append(std::string_view bytes) {
  total_ += bytes.size();
  if (kept_.size() < cap_) kept_.append(bytes.substr(0, cap_ - kept_.size()));
  if (bytes.size() >= kTailBytes) {
    tail_.assign(bytes.substr(bytes.size() - kTailBytes));
    return;
  }
  tail_.append(bytes);
  // Trimmed only once twice as long: O(1) per byte however small the
  // writes, instead of a move of kTailBytes per write.
  if (tail_.size() > 2 * kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
}

std::string_view CappedOutput::tail() const {
  std::string_view t = tail_;
  return t.substr(t.size() - std::min(t.size(), kTailBytes));
}

void CappedOutput::DropSuffix(size_t n) {
  n = std::min<size_t>({n, tail().size(), total_});
  tail_.resize(tail_.size() - n);
  total_ -= n;
  if (kept_.size() > total_) kept_.resize(total_);
}

std::string CappedOutput::TakeKept() {
  taken_ += kept_.size();
  return std::move(kept_);
}

}  // namespace coderunner::isolation
