// ScriptedLlm: an intent::LlmClient that answers from a script, in order,
// and keeps every request. Header-only; thread-safe.
#ifndef CODERUNNER_TESTS_UNIT_INTENT_SCRIPTED_LLM_H_
#define CODERUNNER_TESTS_UNIT_INTENT_SCRIPTED_LLM_H_

#include <deque>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "coderunner/intent/llm_client.h"

namespace coderunner::testutil {

class ScriptedLlm : public intent::LlmClient {
 public:
  // Appends a reply with `content`, reporting `tokens` completion tokens.
  void Reply(std::string content, int64_t tokens = 10) {
    intent::ChatReply reply;
    reply.content = std::move(content);
    reply.prompt_tokens = 0;
    reply.completion_tokens = tokens;
    std::lock_guard<std::mutex> lock(mu_);
    script_.push_back(std::move(reply));
  }
  // Appends a failed call.
  void Fail(Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    script_.push_back(std::move(status));
  }

  // Every request so far, in order.
  std::vector<intent::ChatRequest> requests() const {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

  // The next scripted answer; a call past the script is Internal
  // "script_exhausted" (which a test sees as an unexpected model call).
  StatusOr<intent::ChatReply> Complete(const intent::ChatRequest& request,
                                       const isolation::CancelToken* /*cancel*/) override {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(request);
    if (script_.empty()) return InternalError("no scripted reply left", "script_exhausted");
    StatusOr<intent::ChatReply> next = std::move(script_.front());
    script_.pop_front();
    return next;
  }

 private:
  mutable std::mutex mu_;
  std::deque<StatusOr<intent::ChatReply>> script_;
  std::vector<intent::ChatRequest> requests_;
};

}  // namespace coderunner::testutil

#endif  // CODERUNNER_TESTS_UNIT_INTENT_SCRIPTED_LLM_H_
