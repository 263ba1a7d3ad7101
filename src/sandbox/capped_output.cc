#include "coderunner/sandbox/capped_output.h"

#include <algorithm>
#include <utility>

namespace coderunner::sandbox {

void CappedOutput::Append(std::string_view bytes) {
  total_ += bytes.size();
  if (kept_.size() < cap_) kept_.append(bytes.substr(0, cap_ - kept_.size()));
  if (bytes.size() >= kTailBytes) {
    tail_.assign(bytes.substr(bytes.size() - kTailBytes));
  } else {
    tail_.append(bytes);
    if (tail_.size() > kTailBytes) tail_.erase(0, tail_.size() - kTailBytes);
  }
}

void CappedOutput::DropSuffix(size_t n) {
  n = std::min<size_t>({n, tail_.size(), total_});
  tail_.resize(tail_.size() - n);
  total_ -= n;
  if (kept_.size() > total_) kept_.resize(total_);
}

std::string CappedOutput::TakeKept() {
  taken_ += kept_.size();
  return std::move(kept_);
}

}  // namespace coderunner::sandbox
