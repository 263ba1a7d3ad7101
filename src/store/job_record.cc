#include "coderunner/store/job_record.h"

#include <array>
#include <utility>

namespace coderunner::store {
namespace {

constexpr std::array<std::pair<JobStatus, std::string_view>, 8> kNames = {{
    {JobStatus::kQueued, "queued"},
    {JobStatus::kRunning, "running"},
    {JobStatus::kSucceeded, "succeeded"},
    {JobStatus::kFailed, "failed"},
    {JobStatus::kTimeout, "timeout"},
    {JobStatus::kOom, "oom"},
    {JobStatus::kCancelled, "cancelled"},
    {JobStatus::kError, "error"},
}};

}  // namespace

std::string_view JobStatusName(JobStatus status) {
  for (const auto& [s, name] : kNames) {
    if (s == status) return name;
  }
  return "error";
}

std::optional<JobStatus> ParseJobStatus(std::string_view name) {
  for (const auto& [s, n] : kNames) {
    if (n == name) return s;
  }
  return std::nullopt;
}

bool IsTerminal(JobStatus status) {
  return status != JobStatus::kQueued && status != JobStatus::kRunning;
}

}  // namespace coderunner::store
