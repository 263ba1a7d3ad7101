#include "coderunner/wire/limits_json.h"

namespace coderunner::wire {

nlohmann::json LimitsToJson(const config::Limits& l) {
  return {{"timeout_ms", l.timeout_ms},
          {"cpu_ms", l.cpu_ms},
          {"memory_bytes", l.memory_bytes},
          {"pids", l.pids},
          {"output_bytes", l.output_bytes},
          {"tmp_bytes", l.tmp_bytes},
          {"cpus", l.cpus}};
}

}  // namespace coderunner::wire
