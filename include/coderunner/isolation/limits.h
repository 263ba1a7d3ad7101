// Limits as sandbox names them. The type and its checks live in config
// (coderunner/config/limits.h), below sandbox, because the config reads them.
#ifndef CODERUNNER_ISOLATION_LIMITS_H_
#define CODERUNNER_ISOLATION_LIMITS_H_

#include "coderunner/config/limits.h"

namespace coderunner::isolation {

using config::LimitOverrides;
using config::Limits;
using config::ResolveLimits;
using config::ValidateLimitPair;

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_LIMITS_H_
