// SseParser: splits a text/event-stream body, fed in arbitrary chunks,
// into (event, data) pairs. Not thread-safe: one stream owns it.
#ifndef CODERUNNER_CLI_SSE_PARSER_H_
#define CODERUNNER_CLI_SSE_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace coderunner::cli {

class SseParser {
 public:
  // Called once per complete event: its name ("message" if none was given)
  // and its data lines joined by '\n'. Returning false stops the parser:
  // Feed then ignores the rest and returns false.
  using Handler = std::function<bool(const std::string& event, const std::string& data)>;

  // `max_event_bytes` bounds what is held at once: an incomplete line plus
  // the data gathered for the current event. A stream that exceeds it
  // stops the parser as if the handler had asked to (overflowed() tells).
  explicit SseParser(Handler on_event, size_t max_event_bytes = SIZE_MAX)
      : on_event_(std::move(on_event)), max_event_bytes_(max_event_bytes) {}

  // Consumes `chunk`; complete events are handed to the handler. Comments
  // (": keep-alive") and unknown fields are skipped; "\r\n" is accepted.
  // False once the handler has asked to stop or the bound was exceeded.
  bool Feed(std::string_view chunk);

  // True when Feed stopped because an event outgrew max_event_bytes.
  bool overflowed() const { return overflowed_; }

 private:
  bool Line(std::string_view line);

  Handler on_event_;
  size_t max_event_bytes_;
  std::string pending_;  // An incomplete line.
  std::string event_;
  std::string data_;
  bool has_data_ = false;
  bool stopped_ = false;
  bool overflowed_ = false;
};

}  // namespace coderunner::cli

#endif  // CODERUNNER_CLI_SSE_PARSER_H_
