// LlmClient: one Chat Completions call to a language model.
#ifndef CODERUNNER_INTENT_LLM_CLIENT_H_
#define CODERUNNER_INTENT_LLM_CLIENT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/isolation/cancel_token.h"

namespace coderunner::intent {

struct ChatMessage {
  std::string role;  // "system", "user" or "assistant".
  std::string content;
};

struct ChatRequest {
  std::vector<ChatMessage> messages;
  // Upper bound on the reply's tokens; 0 = the client's configured maximum.
  // A value above the configured maximum is lowered to it.
  int max_tokens = 0;
};

struct ChatReply {
  std::string content;            // The first choice's message text (may be empty).
  int64_t prompt_tokens = 0;      // As the model reported them, else estimated.
  int64_t completion_tokens = 0;  // As the model reported them, else estimated.
  int64_t latency_ms = 0;         // Wall time of the call.
  int64_t total_tokens() const { return prompt_tokens + completion_tokens; }
};

// The reasons every implementation maps its failures to.
// Unavailable: the endpoint cannot be connected to.
inline constexpr char kLlmUnreachable[] = "llm_unreachable";
// DeadlineExceeded: no complete answer within the timeout.
inline constexpr char kLlmTimeout[] = "llm_timeout";
// Unavailable: a non-2xx answer; the message names the HTTP status and the
// model's own message.
inline constexpr char kLlmHttpError[] = "llm_http_error";
// Internal: 2xx, but not a Chat Completions answer.
inline constexpr char kLlmBadReply[] = "llm_bad_reply";
// FailedPrecondition: `cancel` fired during the call (also the reason of an
// intent cancelled between calls).
inline constexpr char kLlmCancelled[] = "cancelled";

// Implementations must be thread-safe: one client serves every intent.
class LlmClient {
 public:
  virtual ~LlmClient() = default;
  // Sends `request` and waits for the whole reply (no streaming), bounded by
  // the client's timeout; returns early with kLlmCancelled once `cancel`
  // (nullable, not owned) fires.
  virtual StatusOr<ChatReply> Complete(const ChatRequest& request,
                                       const isolation::CancelToken* cancel) = 0;
};

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_LLM_CLIENT_H_
