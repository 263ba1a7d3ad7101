#include "coderunner/store/rate_buckets.h"

#include <algorithm>
#include <cmath>

namespace coderunner::store {

TokenAnswer TokenAnswerOf(bool allowed, double tokens_left, int per_minute) {
  if (allowed) return TokenAnswer{true, 0};
  double per_second = std::max(1, per_minute) / 60.0;
  double deficit = std::max(0.0, 1.0 - tokens_left);
  return TokenAnswer{false, std::max(1, static_cast<int>(std::ceil(deficit / per_second)))};
}

}  // namespace coderunner::store
