// CountingAuthenticator: the real Authenticator, counting its calls, for
// tests that check a request's key is checked once.
#ifndef CODERUNNER_TESTS_UNIT_API_COUNTING_AUTHENTICATOR_H_
#define CODERUNNER_TESTS_UNIT_API_COUNTING_AUTHENTICATOR_H_

#include <atomic>
#include <string_view>

#include "coderunner/auth/authenticator.h"

namespace coderunner::testutil {

class CountingAuthenticator : public auth::Authenticator {
 public:
  using Authenticator::Authenticator;

  StatusOr<auth::Principal> Authenticate(std::string_view authorization) const override {
    ++calls_;
    return Authenticator::Authenticate(authorization);
  }

  // Calls so far, from any thread.
  int calls() const { return calls_; }

 private:
  mutable std::atomic<int> calls_{0};
};

}  // namespace coderunner::testutil

#endif  // CODERUNNER_TESTS_UNIT_API_COUNTING_AUTHENTICATOR_H_
