// ContainerRunner's /output, as the service itself guards it: the live
// watch while the job runs, and the settlement once nothing of the job
// runs any more (the last measurement, and the undo of a volume's run that
// broke a bound). coderunner-init's trailer says what init saw; these are
// what the result rests on.
#include <spdlog/spdlog.h>

#include "coderunner/isolation/container_runner.h"
#include "coderunner/isolation/output_usage.h"

namespace coderunner::isolation {
namespace {

OutputLimits LimitsOf(const OutputMount& output) {
  return {output.max_bytes, output.max_file_bytes, output.max_entries};
}

}  // namespace

std::unique_ptr<OutputWatch::Handle> ContainerRunner::WatchOutput(const JobSpec& job,
                                                                  const OutputMount& output,
                                                                  const std::string& id) {
  if (options_.output_watch == nullptr || output.host_dir.empty()) return nullptr;
  engine::ContainerClient& containers = containers_;
  const std::string job_id = job.id;
  auto kill = [&containers, id, job_id](std::string_view bound) {
    spdlog::warn("job {}: /output broke a bound ({}): killing its container", job_id, bound);
    Status killed = containers.Kill(id);
    if (!killed.ok()) spdlog::warn("job {}: kill: {}", job_id, killed.ToString());
  };
  return options_.output_watch->Watch(output.host_dir, LimitsOf(output), id, kill);
}

ContainerRunner::OutputVerdict ContainerRunner::SettleOutput(
    const JobSpec& job, const OutputMount& output, std::unique_ptr<OutputWatch::Handle> watch,
    const OutputSnapshot* before) {
  OutputVerdict v;
  if (watch != nullptr) v.violation = watch->violation();
  watch.reset();
  if (output.host_dir.empty()) return v;
  const OutputLimits limits = LimitsOf(output);
  OutputUsage end = MeasureOutput(output.host_dir, limits);
  if (v.violation.empty()) v.violation = std::string(BrokenBound(limits, end));
  if (!v.violation.empty() && output.is_volume) {
    Status undone = before != nullptr
                        ? before->RollBack(output.host_dir)
                        : FailedPreconditionError("no record of the volume before the run");
    v.rolled_back = undone.ok();
    if (!undone.ok()) {
      spdlog::error("job {}: volume {}: {}", job.id, job.volume.id, undone.ToString());
    }
    end = MeasureOutput(output.host_dir, limits);
  }
  v.used_bytes = end.used_bytes;
  return v;
}

}  // namespace coderunner::isolation
