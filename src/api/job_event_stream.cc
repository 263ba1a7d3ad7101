#include "job_event_stream.h"

#include <chrono>
#include <nlohmann/json.hpp>
#include <string_view>
#include <vector>

#include "coderunner/common/utf8.h"
#include "coderunner/wire/job_json.h"

namespace coderunner::api {
namespace {

using nlohmann::json;

// Appends the Server-Sent Event `name` with `data` to `out`.
void AppendSseEvent(const char* name, const json& data, std::string& out) {
  out += "event: ";
  out += name;
  out += "\ndata: ";
  out += data.dump(-1, ' ', false, json::error_handler_t::replace);
  out += "\n\n";
}

// Writes `text` in pieces of at most JobEventStream::kWriteSlice; false if
// the client is gone.
bool WriteSliced(httplib::DataSink& sink, std::string_view text) {
  for (size_t at = 0; at < text.size(); at += JobEventStream::kWriteSlice) {
    std::string_view piece = text.substr(at, JobEventStream::kWriteSlice);
    if (!sink.write(piece.data(), piece.size())) return false;
  }
  return true;
}

}  // namespace

void JobEventStream::AppendEvents(const std::vector<jobs::JobEvent>& events, std::string& out) {
  for (const auto& e : events) {
    if (e.kind == jobs::JobEvent::Kind::kStatus) {
      AppendSseEvent("status", {{"status", e.data}}, out);
      continue;
    }
    if (e.kind == jobs::JobEvent::Kind::kStage) {
      // Our own JSON (the intent pipeline's stage object).
      AppendSseEvent("stage", json::parse(e.data, nullptr, false), out);
      continue;
    }
    bool err = e.kind == jobs::JobEvent::Kind::kStderr;
    std::string& carry = carry_[err ? 1 : 0];
    carry += e.data;
    size_t clean = CompleteUtf8Prefix(carry);
    if (clean == 0) continue;
    AppendSseEvent(err ? "stderr" : "stdout",
                   {{"data", SanitizeUtf8(std::string_view(carry).substr(0, clean))}}, out);
    carry.erase(0, clean);
  }
}

bool JobEventStream::WriteRecordEvent(httplib::DataSink& sink, const char* name) {
  auto record = finals_.Get(id_, tenant_, [&] { return service_.Get(id_, tenant_); });
  if (!record.ok()) return true;
  // Streamed from the shared record: no copy of its result per stream.
  return WriteSliced(sink, std::string("event: ") + name + "\ndata: ") &&
         wire::WriteJobJson(**record,
                            [&](std::string_view piece) { return WriteSliced(sink, piece); }) &&
         WriteSliced(sink, "\n\n");
}

bool JobEventStream::WriteNext(httplib::DataSink& sink) {
  std::string out;
  if (!sent_state_) {
    sent_state_ = true;
    // A late client first learns where the job stands. Without a channel
    // the job is terminal and this is its final record, result included.
    if (!channel_) {
      if (!WriteRecordEvent(sink, "state")) return false;
    } else if (auto now = service_.Get(id_, tenant_); now.ok()) {
      // Written at once, on its own: a queued job may have nothing to tell
      // for a long time.
      AppendSseEvent("state", wire::JobToJson(*now), out);
      return WriteSliced(sink, out);
    }
  }
  bool terminal = !channel_;
  if (channel_) {
    std::vector<jobs::JobEvent> events;
    terminal =
        channel_->WaitEvents(&cursor_, std::chrono::steady_clock::now() + std::chrono::seconds(15),
                             kOutputBytesPerWrite, &events);
    AppendEvents(events, out);
  }
  if (!terminal && out.empty()) out = ": keep-alive\n\n";
  if (!WriteSliced(sink, out)) return false;
  if (!terminal) return true;
  channel_.reset();  // Told everything; the record has the rest.
  if (!WriteRecordEvent(sink, "result")) return false;
  sink.done();
  return true;
}

}  // namespace coderunner::api
