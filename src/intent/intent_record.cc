#include "coderunner/intent/intent_record.h"

#include <nlohmann/json.hpp>

#include "coderunner/common/ids.h"
#include "coderunner/common/sha256.h"
#include "coderunner/config/tier_limits.h"
#include "coderunner/jobs/job_clock.h"
#include "coderunner/jobs/job_request.h"
#include "coderunner/wire/execute_request.h"

namespace coderunner::intent {

StatusOr<store::JobRecord> IntentRecord(const std::string& tenant, const config::TierConfig* tier,
                                        const IntentRequest& request,
                                        const config::Config& config) {
  CR_ASSIGN_OR_RETURN(wire::ExecuteRequest probe,
                      AttemptRequest(request, "", wire::CapsFromConfig(config)));
  store::JobRecord rec;
  rec.id = NewId("job");
  CR_ASSIGN_OR_RETURN(isolation::JobSpec spec, wire::BuildJobSpec(probe, config, rec.id, tier,
                                                                  config::LimitsUse::kExecuteMode));
  // The first run's: the execution budget bounds it too.
  spec.limits = config::CapRunTime(spec.limits, config::IntentExecBudgetMs(config, tier));
  int64_t now = jobs::NowMs();
  rec.kind = "intent";
  rec.tenant = tenant;
  rec.language = request.language;
  rec.request_json = jobs::EncodeStoredRequest(IntentRequestToJson(request), "", false,
                                               tier != nullptr ? tier->name : "");
  // The code is the model's and not known yet: code_sha256 names the
  // intent instead, inputs_sha256 the inputs.
  rec.code_sha256 = Sha256Hex(request.intent);
  rec.inputs_sha256 = Sha256Hex(request.inputs.dump());
  rec.image = spec.language.image;
  rec.limits_json = nlohmann::json{{"timeout_ms", spec.limits.timeout_ms},
                                   {"cpu_ms", spec.limits.cpu_ms},
                                   {"memory_bytes", spec.limits.memory_bytes},
                                   {"pids", spec.limits.pids},
                                   {"output_bytes", spec.limits.output_bytes},
                                   {"tmp_bytes", spec.limits.tmp_bytes},
                                   {"cpus", spec.limits.cpus}}
                        .dump();
  rec.callback_url = request.callback_url;
  rec.created_at_ms = now;
  rec.transitions.push_back({store::JobStatus::kQueued, now});
  return rec;
}

}  // namespace coderunner::intent
