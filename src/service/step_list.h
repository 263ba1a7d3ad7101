// StepList: named startup steps run in order until one fails.
#ifndef CODERUNNER_SERVICE_STEP_LIST_H_
#define CODERUNNER_SERVICE_STEP_LIST_H_

#include <functional>
#include <string>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::service {

// An ordered list of named steps, each returning Status. Not thread-safe:
// build and run it from one thread.
class StepList {
 public:
  using StepFunction = std::function<Status()>;

  // Appends a step named `name` (non-empty, e.g. "init binary") that runs
  // after every step added before it. Returns *this, for chaining.
  StepList& Add(std::string name, StepFunction run);

  // Runs the steps in the order they were added and stops at the first one
  // that fails: the steps after it do not run. Returns OK when every step
  // succeeded, else that step's Status with the message
  // "<step name>: <message>" (code and reason kept). May be called once.
  Status Run() const;

  // The steps' names, in the order they run.
  std::vector<std::string> names() const;

 private:
  struct Step {
    std::string name;
    StepFunction run;
  };
  std::vector<Step> steps_;
};

}  // namespace coderunner::service

#endif  // CODERUNNER_SERVICE_STEP_LIST_H_
