// `coderunner mcp`: the MCP stdio transport, relayed to a server's
// Streamable HTTP endpoint (McpRelay). Reads newline-delimited JSON-RPC
// from stdin until it ends or a signal comes.
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>

#include "commands.h"
#include "console.h"
#include "line_splitter.h"
#include "mcp_http.h"
#include "mcp_relay.h"

namespace coderunner::cli {
namespace {

// After stdin ends, how long the requests still in flight may take to be
// answered (a script may pipe a tools/call in and close stdin at once).
constexpr std::chrono::seconds kDrainAfterEndOfInput{60};
// poll()'s timeout: how soon a signal (which only sets a flag) is noticed.
constexpr int kPollMillis = 100;
constexpr size_t kReadChunkBytes = 64 * 1024;

// Feeds stdin to `splitter` until it ends (true) or `interrupted` is
// raised (false).
bool ReadInput(LineSplitter* splitter, const std::atomic<bool>* interrupted) {
  char buf[kReadChunkBytes];
  while (!interrupted->load()) {
    pollfd fd = {0, POLLIN, 0};
    int ready = poll(&fd, 1, kPollMillis);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    ssize_t n = ready > 0 ? read(0, buf, sizeof(buf)) : -1;
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {  // End of input (or an unreadable stdin, which ends it too).
      splitter->Finish();
      return true;
    }
    splitter->Feed(std::string_view(buf, static_cast<size_t>(n)));
  }
  return false;
}

}  // namespace

int McpCommand(const McpArgs& args, const CommandContext& ctx) {
  (void)args;  // Only --server, which ctx.client already holds.
  CatchInterrupts();
  const std::atomic<bool>* interrupted = InterruptFlag();
  McpHttp http(ctx.client->base_url(), ctx.client->api_key());
  McpRelay relay(&http, interrupted);
  LineSplitter splitter(
      kMaxMcpMessageBytes, [&relay](std::string_view line) { relay.HandleLine(line); },
      [&relay] { relay.HandleOverlongLine(); });
  bool ended = ReadInput(&splitter, interrupted);
  relay.Shutdown(ended ? std::chrono::milliseconds(kDrainAfterEndOfInput)
                       : std::chrono::milliseconds(0));
  return 0;
}

}  // namespace coderunner::cli
