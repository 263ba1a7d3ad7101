#include "sse_parser.h"

namespace coderunner::cli {

bool SseParser::Feed(std::string_view chunk) {
  if (stopped_) return false;
  pending_.append(chunk);
  size_t start = 0;
  for (size_t nl = pending_.find('\n', start); nl != std::string::npos;
       nl = pending_.find('\n', start)) {
    std::string_view line(pending_.data() + start, nl - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    start = nl + 1;
    if (!Line(line)) {
      stopped_ = true;
      pending_.clear();
      return false;
    }
  }
  pending_.erase(0, start);
  if (pending_.size() + data_.size() > max_event_bytes_) {
    overflowed_ = stopped_ = true;
    pending_.clear();
    data_.clear();
    return false;
  }
  return true;
}

bool SseParser::Line(std::string_view line) {
  if (line.empty()) {
    // A blank line ends the event; one without data is nothing (per the
    // EventSource rules).
    bool keep_going = true;
    if (has_data_) keep_going = on_event_(event_.empty() ? "message" : event_, data_);
    event_.clear();
    data_.clear();
    has_data_ = false;
    return keep_going;
  }
  if (line[0] == ':') return true;
  size_t colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
  if (!value.empty() && value[0] == ' ') value.remove_prefix(1);
  if (field == "event") {
    event_ = value;
  } else if (field == "data") {
    if (has_data_) data_ += '\n';
    data_.append(value);
    has_data_ = true;
  }
  return true;
}

}  // namespace coderunner::cli
