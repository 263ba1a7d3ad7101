// PoolOptions as sandbox names them. The type lives in config
// (coderunner/config/pool_options.h), below sandbox, because the config reads it.
#ifndef CODERUNNER_ISOLATION_POOL_OPTIONS_H_
#define CODERUNNER_ISOLATION_POOL_OPTIONS_H_

#include "coderunner/config/pool_options.h"

namespace coderunner::isolation {

using config::PoolOptions;

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_POOL_OPTIONS_H_
