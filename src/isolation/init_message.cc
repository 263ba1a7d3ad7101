// See init_message.h; init's decoder is src/init/go_message.c.
#include "init_message.h"

#include <string.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace coderunner::isolation {
namespace {

constexpr char kGoMagic[] = "CRGO";
constexpr char kWithStdin[] = "stdin";
constexpr char kWithoutStdin[] = "-";
// Bounds on what a go message may carry, below init's own
// (kMaxGoPayloadBytes = 60000, kMaxGoArgs = 1024 in src/init/go_message.h).
constexpr size_t kMaxGoArgBytes = 56000;  // Counting kGoOverheadBytes.
constexpr size_t kMaxGoArgCount = 1000;
// Room kept for the stdin field, the nonce and the mode.
constexpr size_t kGoOverheadBytes = 80;

void AppendField(std::string& payload, const std::string& field) {
  payload += field;
  payload.push_back('\0');
}

const char* ModeField(GoMode mode) {
  switch (mode) {
    case GoMode::kMore:
      return "more";
    case GoMode::kLast:
      return "last";
    case GoMode::kReuse:
      return "reuse";
    case GoMode::kOnce:
      break;
  }
  return "once";
}

}  // namespace

bool FitsGoMessage(const std::vector<std::string>& args) {
  size_t bytes = kGoOverheadBytes;
  for (const auto& a : args) bytes += a.size() + 1;
  return bytes <= kMaxGoArgBytes && args.size() <= kMaxGoArgCount;
}

std::string EncodeGoMessage(const GoRequest& go) {
  std::string payload;
  AppendField(payload, go.with_stdin ? kWithStdin : kWithoutStdin);
  AppendField(payload, go.nonce);
  AppendField(payload, ModeField(go.mode));
  for (const auto& a : go.args) AppendField(payload, a);
  std::string msg = kGoMagic;
  const auto n = static_cast<uint32_t>(payload.size());
  for (int i = 0; i < 4; ++i) msg.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  msg += payload;
  return msg;
}

Status WriteGoMessage(int fd, const GoRequest& go) {
  const std::string msg = EncodeGoMessage(go);
  ssize_t w = write(fd, msg.data(), msg.size());
  if (w != static_cast<ssize_t>(msg.size())) {
    return InternalError("write go message to pool container: " +
                             std::string(w < 0 ? strerror(errno) : "short write"),
                         "pool_go_failed");
  }
  return OkStatus();
}

}  // namespace coderunner::isolation
