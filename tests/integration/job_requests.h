// Submitting jobs and waiting for them through a node's HTTP API, for the
// integration tests that drive several requests by hand.
#ifndef CODERUNNER_TESTS_INTEGRATION_JOB_REQUESTS_H_
#define CODERUNNER_TESTS_INTEGRATION_JOB_REQUESTS_H_

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "server_process.h"

namespace coderunner::testing {

// A python job without the cache.
nlohmann::json Python(const std::string& code);
// POST /v1/jobs; the id, or "" (with a failure) unless 202.
std::string Submit(const ServerProcess& s, const std::string& code);
// Waits through /wait until the job is terminal; the last record seen (a
// failure if it never was within `budget`, which only bounds a hang).
nlohmann::json WaitTerminal(const ServerProcess& s, const std::string& id,
                            std::chrono::seconds budget = std::chrono::seconds(120));

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_JOB_REQUESTS_H_
