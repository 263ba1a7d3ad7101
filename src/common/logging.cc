#include "coderunner/common/logging.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>

#include "coderunner/common/ids.h"

namespace coderunner {
namespace {

thread_local std::string current_request_id;

// "2026-11-23T16:30:00.123Z": UTC, so lines from several hosts sort.
std::string IsoTime(spdlog::log_clock::time_point t) {
  auto since = t.time_since_epoch();
  auto secs = std::chrono::duration_cast<std::chrono::seconds>(since);
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since - secs).count();
  std::time_t tt = static_cast<std::time_t>(secs.count());
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[40];
  size_t n = std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof(buf) - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

// One JSON object per line. Messages are arbitrary bytes (paths, engine
// answers): invalid UTF-8 is replaced rather than breaking the line.
class JsonFormatter : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    nlohmann::json line = {{"ts", IsoTime(msg.time)},
                           {"level", std::string(spdlog::level::to_string_view(msg.level).data(),
                                                 spdlog::level::to_string_view(msg.level).size())},
                           {"msg", std::string(msg.payload.data(), msg.payload.size())}};
    if (!current_request_id.empty()) line["request_id"] = current_request_id;
    std::string text = line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    text += '\n';
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

// %Q in the text pattern: " [req <id>]" while a request is handled.
class RequestIdFlag : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg&, const std::tm&,
              spdlog::memory_buf_t& dest) override {
    if (current_request_id.empty()) return;
    std::string text = " [req " + current_request_id + "]";
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<RequestIdFlag>();
  }
};

bool IdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '_' || c == ':' || c == '-';
}

}  // namespace

Status ConfigureLogging(std::string_view level, std::string_view format) {
  auto lvl = spdlog::level::from_str(std::string(level));
  // from_str answers "off" for any unknown name.
  if (lvl == spdlog::level::off && level != "off") {
    return InvalidArgumentError("log.level: unknown level '" + std::string(level) + "'",
                                "invalid_config");
  }
  if (format == "json") {
    spdlog::set_formatter(std::make_unique<JsonFormatter>());
  } else if (format == "text") {
    auto f = std::make_unique<spdlog::pattern_formatter>();
    // spdlog's default pattern, plus the request id.
    f->add_flag<RequestIdFlag>('Q').set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%^%l%$] %v%Q");
    spdlog::set_formatter(std::move(f));
  } else {
    return InvalidArgumentError("log.format: must be text or json", "invalid_config");
  }
  spdlog::set_level(lvl);
  return OkStatus();
}

const std::string& CurrentRequestId() { return current_request_id; }

void SetRequestId(std::string id) { current_request_id = std::move(id); }

void ClearRequestId() { current_request_id.clear(); }

std::string RequestIdFor(std::string_view offered) {
  bool ok = !offered.empty() && offered.size() <= 128;
  for (char c : offered) ok = ok && IdChar(c);
  return ok ? std::string(offered) : NewId("req");
}

}  // namespace coderunner
