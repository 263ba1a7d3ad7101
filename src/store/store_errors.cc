#include "store_errors.h"

#include <string>
#include <utility>

namespace coderunner::store {

Status CorruptError(std::string message) {
  return InternalError(std::move(message), kReasonStoreCorrupt);
}

}  // namespace coderunner::store
