#include "step_list.h"

#include <utility>

namespace coderunner::service {

StepList& StepList::Add(std::string name, StepFunction run) {
  steps_.push_back({std::move(name), std::move(run)});
  return *this;
}

Status StepList::Run() const {
  for (const Step& step : steps_) {
    Status status = step.run();
    if (!status.ok()) return status.WithContext(step.name);
  }
  return OkStatus();
}

std::vector<std::string> StepList::names() const {
  std::vector<std::string> out;
  out.reserve(steps_.size());
  for (const Step& step : steps_) out.push_back(step.name);
  return out;
}

}  // namespace coderunner::service
