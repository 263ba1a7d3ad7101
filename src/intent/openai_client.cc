#include "coderunner/intent/openai_client.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "coderunner/common/bounded_json.h"
#include "coderunner/common/curl_handle.h"
#include "coderunner/common/utf8.h"

namespace coderunner::intent {
namespace {

using nlohmann::json;

constexpr size_t kMaxReplyBytes = 4 << 20;

// The model's answers are untrusted bytes: parsed within these bounds.
JsonBounds ReplyBounds() {
  JsonBounds b;
  b.max_bytes = kMaxReplyBytes;
  return b;
}

struct Transfer {
  std::string body;
  bool too_large = false;
  const isolation::CancelToken* cancel = nullptr;
  bool cancelled = false;
};

size_t OnBody(char* data, size_t size, size_t nmemb, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t n = size * nmemb;
  if (t->body.size() + n > kMaxReplyBytes) {
    t->too_large = true;
    return 0;  // Aborts with CURLE_WRITE_ERROR.
  }
  t->body.append(data, n);
  return n;
}

// Called about every second by curl, and more often while data flows: the
// way a DELETE of the intent aborts a call that is waiting on the model.
int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* t = static_cast<Transfer*>(user);
  if (t->cancel != nullptr && t->cancel->cancelled()) {
    t->cancelled = true;
    return 1;
  }
  return 0;
}

int64_t Estimate(size_t bytes) { return static_cast<int64_t>((bytes + 3) / 4); }

// At most `max` bytes of `text`, cut on a character boundary and repaired:
// error messages end up in job records and API answers as JSON strings, and
// an answer that is not UTF-8 (or a cut through a character) would make
// serializing them throw.
std::string Excerpt(std::string_view text, size_t max) {
  text = text.substr(0, max);
  if (text.size() == max) text = text.substr(0, CompleteUtf8Prefix(text));
  return SanitizeUtf8(text);
}

// The model's own words from an error answer, if it is OpenAI-shaped.
std::string ErrorDetail(const std::string& body) {
  json j = ParseBoundedJsonOrDiscarded(body, ReplyBounds());
  if (j.is_object()) {
    auto e = j.find("error");
    if (e != j.end() && e->is_object() && e->contains("message") && (*e)["message"].is_string()) {
      return Excerpt((*e)["message"].get_ref<const std::string&>(), 500);
    }
    if (e != j.end() && e->is_string()) return Excerpt(e->get_ref<const std::string&>(), 500);
  }
  return Excerpt(body, 200);
}

}  // namespace

OpenAiClient::OpenAiClient(config::LlmConfig config, std::string api_key)
    : config_(std::move(config)), api_key_(std::move(api_key)) {
  CurlGlobalInit();
  url_ = config_.base_url;
  while (!url_.empty() && url_.back() == '/') url_.pop_back();
  url_ += "/chat/completions";
}

StatusOr<std::unique_ptr<OpenAiClient>> OpenAiClient::FromConfig(const config::LlmConfig& config) {
  if (config.base_url.empty() || config.model.empty()) {
    return InvalidArgumentError("llm: base_url and model are both required", "invalid_config");
  }
  std::string key;
  if (!config.api_key_env.empty()) {
    const char* v = std::getenv(config.api_key_env.c_str());
    if (v == nullptr || *v == '\0') {
      return FailedPreconditionError(
          "llm.api_key_env names " + config.api_key_env + ", which is not set in the environment",
          "llm_key_missing");
    }
    key = v;
  }
  return std::make_unique<OpenAiClient>(config, std::move(key));
}

std::string OpenAiClient::Redact(std::string text) const {
  // Some servers quote the key they rejected ("Incorrect API key provided:
  // sk-..."); the excerpt of their answer ends up in job records and logs.
  // Redacting before the excerpt is cut means no prefix of the key survives.
  constexpr std::string_view kRedacted = "[redacted]";
  if (api_key_.empty()) return text;
  for (size_t at = text.find(api_key_); at != std::string::npos; at = text.find(api_key_, at)) {
    text.replace(at, api_key_.size(), kRedacted);
    at += kRedacted.size();
  }
  return text;
}

namespace {

// The Chat Completions request for `request`; `prompt_bytes` gets the size
// of the messages' contents (the estimate when the model reports no usage).
std::string ChatPayload(const ChatRequest& request, const config::LlmConfig& config,
                        size_t* prompt_bytes) {
  json messages = json::array();
  *prompt_bytes = 0;
  for (const auto& m : request.messages) {
    messages.push_back({{"role", m.role}, {"content", m.content}});
    *prompt_bytes += m.content.size();
  }
  int max_tokens = config.max_tokens;
  if (request.max_tokens > 0) max_tokens = std::min(max_tokens, request.max_tokens);
  return json{{"model", config.model},
              {"messages", messages},
              {"max_tokens", max_tokens},
              {"temperature", config.temperature},
              {"stream", false}}
      .dump(-1, ' ', false, json::error_handler_t::replace);
}

void SetTransferOptions(CURL* h, const std::string& url, const std::string& payload,
                        curl_slist* headers, Transfer* t, const config::LlmConfig& config) {
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_POST, 1L);
  curl_easy_setopt(h, CURLOPT_POSTFIELDS, payload.data());
  curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(payload.size()));
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, t);
  curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(h, CURLOPT_XFERINFODATA, t);
  curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, static_cast<long>(config.timeout_ms));
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config.connect_timeout_ms));
  // Worker threads must never get SIGALRM from curl's resolver.
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
}

// The reply of a 2xx answer `body`; nullopt when it is not a chat
// completion.
std::optional<ChatReply> ParseChatReply(const std::string& body, size_t prompt_bytes) {
  json j = ParseBoundedJsonOrDiscarded(body, ReplyBounds());
  const json* content = nullptr;
  if (j.is_object() && j.contains("choices") && j["choices"].is_array() && !j["choices"].empty() &&
      j["choices"][0].is_object()) {
    const json& choice = j["choices"][0];
    if (choice.contains("message") && choice["message"].is_object() &&
        choice["message"].contains("content") && choice["message"]["content"].is_string()) {
      content = &choice["message"]["content"];
    }
  }
  if (content == nullptr) return std::nullopt;
  ChatReply reply;
  reply.content = content->get<std::string>();
  const json* usage = j.contains("usage") && j["usage"].is_object() ? &j["usage"] : nullptr;
  auto count = [&](const char* key, int64_t estimate) -> int64_t {
    if (usage != nullptr && usage->contains(key) && (*usage)[key].is_number_integer()) {
      return (*usage)[key].get<int64_t>();
    }
    return estimate;
  };
  reply.prompt_tokens = count("prompt_tokens", Estimate(prompt_bytes));
  reply.completion_tokens = count("completion_tokens", Estimate(reply.content.size()));
  return reply;
}

}  // namespace

StatusOr<std::string> OpenAiClient::Post(const std::string& payload,
                                         const isolation::CancelToken* cancel,
                                         int64_t* latency_ms) const {
  CurlEasyPtr curl(curl_easy_init());
  if (!curl) return InternalError("curl_easy_init failed", kLlmUnreachable);
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  std::string auth;
  if (!api_key_.empty()) {
    auth = "Authorization: Bearer " + api_key_;
    headers = curl_slist_append(headers, auth.c_str());
  }
  CurlListPtr header_list(headers);
  Transfer t;
  t.cancel = cancel;
  CURL* h = curl.get();
  SetTransferOptions(h, url_, payload, headers, &t, config_);
  auto t0 = std::chrono::steady_clock::now();
  CURLcode rc = curl_easy_perform(h);
  *latency_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0)
          .count();
  if (t.cancelled) return FailedPreconditionError("the model call was cancelled", kLlmCancelled);
  if (t.too_large) return InternalError("the model's answer is larger than 4 MiB", kLlmBadReply);
  if (rc == CURLE_OPERATION_TIMEDOUT) {
    // curl reports a connect that never completed (a firewalled or
    // black-holed host) with the same code as a slow model; only the latter
    // is the model's fault, the former is an endpoint we cannot reach.
    curl_off_t connect_us = 0;
    curl_easy_getinfo(h, CURLINFO_CONNECT_TIME_T, &connect_us);
    if (connect_us == 0) {
      return UnavailableError(
          "cannot reach the model at " + config_.base_url + ": no connection within " +
              std::to_string(std::min(config_.connect_timeout_ms, config_.timeout_ms)) + " ms",
          kLlmUnreachable);
    }
    return DeadlineExceededError(
        "the model did not answer within " + std::to_string(config_.timeout_ms) + " ms",
        kLlmTimeout);
  }
  if (rc != CURLE_OK) {
    return UnavailableError(std::string("cannot reach the model at ") + config_.base_url + ": " +
                                curl_easy_strerror(rc),
                            kLlmUnreachable);
  }
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) {
    return UnavailableError(
        "the model answered HTTP " + std::to_string(status) + ": " + ErrorDetail(Redact(t.body)),
        kLlmHttpError);
  }
  return std::move(t.body);
}

StatusOr<ChatReply> OpenAiClient::Complete(const ChatRequest& request,
                                           const isolation::CancelToken* cancel) {
  size_t prompt_bytes = 0;
  std::string payload = ChatPayload(request, config_, &prompt_bytes);
  int64_t latency = 0;
  StatusOr<std::string> body = Post(payload, cancel, &latency);
  if (!body.ok()) return body.status();
  std::optional<ChatReply> reply = ParseChatReply(*body, prompt_bytes);
  if (!reply) {
    return InternalError(
        "the model's answer is not a chat completion: " + Excerpt(Redact(*body), 200),
        kLlmBadReply);
  }
  reply->latency_ms = latency;
  return *std::move(reply);
}

}  // namespace coderunner::intent
