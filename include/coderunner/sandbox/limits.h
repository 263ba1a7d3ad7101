// Limits as sandbox names them. The type and its checks live in config
// (coderunner/config/limits.h), below sandbox, because the config reads them.
#ifndef CODERUNNER_SANDBOX_LIMITS_H_
#define CODERUNNER_SANDBOX_LIMITS_H_

#include "coderunner/config/limits.h"

namespace coderunner::sandbox {

using config::LimitOverrides;
using config::Limits;
using config::ResolveLimits;
using config::ValidateLimitPair;

}  // namespace coderunner::sandbox

#endif  // CODERUNNER_SANDBOX_LIMITS_H_
