// OpenAiClient: LlmClient over an OpenAI-compatible Chat Completions
// endpoint (OpenAI, vLLM, Ollama, the llama.cpp server) through libcurl.
#ifndef CODERUNNER_INTENT_OPENAI_CLIENT_H_
#define CODERUNNER_INTENT_OPENAI_CLIENT_H_

#include <memory>
#include <string>

#include "coderunner/config/config.h"
#include "coderunner/intent/llm_client.h"

namespace coderunner::intent {

// POSTs {"model","messages","max_tokens","temperature","stream":false} to
// <base_url>/chat/completions, one fresh curl handle per call (no shared
// state, so thread-safe), bounded by llm.timeout_ms and
// llm.connect_timeout_ms; no redirects; http and https only; answers over
// 4 MiB are llm_bad_reply. Errors follow LlmClient; a connect that does not
// complete within connect_timeout_ms is llm_unreachable (not llm_timeout).
// Error messages quote at most 200 bytes of an answer (500 of an OpenAI
// error.message), as valid UTF-8. The API key is sent as a Bearer token and
// never logged or put in an error (a server quoting it back is redacted).
class OpenAiClient : public LlmClient {
 public:
  // `api_key` "" = no Authorization header.
  OpenAiClient(config::LlmConfig config, std::string api_key);

  // The client for `config`, its key read from the environment variable
  // config.api_key_env names (if any). InvalidArgument "invalid_config" if
  // base_url or model is empty; FailedPrecondition "llm_key_missing" if the
  // named variable is unset or empty.
  static StatusOr<std::unique_ptr<OpenAiClient>> FromConfig(const config::LlmConfig& config);

  StatusOr<ChatReply> Complete(const ChatRequest& request,
                               const isolation::CancelToken* cancel) override;

 private:
  // `text` with every occurrence of the API key replaced by "[redacted]".
  std::string Redact(std::string text) const;
  // Posts `payload` and returns the 2xx answer's body, or the error Complete
  // documents. `latency_ms` gets the call's wall time.
  StatusOr<std::string> Post(const std::string& payload, const isolation::CancelToken* cancel,
                             int64_t* latency_ms) const;

  config::LlmConfig config_;
  std::string api_key_;
  std::string url_;
};

}  // namespace coderunner::intent

#endif  // CODERUNNER_INTENT_OPENAI_CLIENT_H_
