// PoolOptions as sandbox names them. The type lives in config
// (coderunner/config/pool_options.h), below sandbox, because the config reads it.
#ifndef CODERUNNER_SANDBOX_POOL_OPTIONS_H_
#define CODERUNNER_SANDBOX_POOL_OPTIONS_H_

#include "coderunner/config/pool_options.h"

namespace coderunner::sandbox {

using config::PoolOptions;

}  // namespace coderunner::sandbox

#endif  // CODERUNNER_SANDBOX_POOL_OPTIONS_H_
