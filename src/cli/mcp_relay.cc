#include "mcp_relay.h"

#include <utility>
#include <vector>

#include "console.h"

namespace coderunner::cli {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using std::chrono::steady_clock;

// A notification or response is answered at once (202); one that takes
// this long holds up reading stdin, so it is given up.
constexpr std::chrono::seconds kNotificationTimeout{30};
// The DELETE that ends the session. Short: a client that closed our stdin
// sends SIGTERM and then, 2 s later, SIGKILL (as the SDKs do).
constexpr std::chrono::seconds kEndSessionTimeout{2};
// Waits check the interrupt flag (set by a signal handler, which cannot
// notify) this often.
constexpr milliseconds kPollInterval{100};
// Before opening the session's stream again after it ended well, and the
// step of the back-off after a failure.
constexpr milliseconds kStreamReconnectDelay{1000};
// Failed attempts in a row after which the session's stream is given up.
constexpr int kMaxStreamFailures = 3;
// The id of the initialize the relay replays to renew a session; its
// answer is the relay's own and not written to stdout.
constexpr char kRenewRequestId[] = "coderunner-mcp-renew-session";

constexpr char kInitialize[] = "initialize";
constexpr char kInitialized[] = "notifications/initialized";

}  // namespace

McpRelay::McpRelay(const McpHttp* http, const std::atomic<bool>* interrupted)
    : http_(http), interrupted_(interrupted) {}

McpRelay::~McpRelay() { Shutdown(milliseconds(0)); }

void McpRelay::WriteLine(const std::string& line) {
  std::lock_guard<std::mutex> lock(out_mu_);
  if (stopping_.load()) return;
  WriteOut(line + "\n");
}

void McpRelay::WriteOutcome(const RelayOutcome& outcome) {
  for (const std::string& line : outcome.lines) WriteLine(line);
  if (!outcome.diagnostic.empty()) WriteErr(outcome.diagnostic + "\n");
}

bool McpRelay::Stopping() const { return stopping_.load() || interrupted_->load(); }

McpRelay::Session McpRelay::CurrentSession() {
  std::lock_guard<std::mutex> lock(mu_);
  return session_;
}

void McpRelay::AdoptSession(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (session_.id != id) session_changed_.store(true);
    session_ = Session{id, ""};
  }
  cv_.notify_all();
}

void McpRelay::AdoptProtocolVersion(const std::string& version) {
  std::lock_guard<std::mutex> lock(mu_);
  session_.protocol_version = version;
}

void McpRelay::HandleLine(std::string_view line) {
  ClientLine parsed = ParseClientLine(line);
  if (!parsed.reply.empty()) WriteLine(parsed.reply);
  if (!parsed.message) return;
  McpMessage& message = *parsed.message;
  if (message.method == kInitialize) {
    std::lock_guard<std::mutex> lock(mu_);
    initialize_text_ = message.text;
  }
  // initialize is answered before the next line is read: everything after
  // it needs the session it starts.
  if (message.kind == McpMessageKind::kRequest && message.method != kInitialize) {
    StartRequest(std::move(message));
    return;
  }
  Send(message, nullptr);
  if (auto id = CancelledRequestId(message)) MarkCancelled(*id);
  if (message.method == kInitialized) StartServerStream();
}

void McpRelay::HandleOverlongLine() { WriteLine(OverlongLineReply(kMaxMcpMessageBytes)); }

void McpRelay::StartRequest(McpMessage message) {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    ReapFinishedLocked();
    if (shut_down_ || Stopping()) return;
    if (requests_.size() < kMaxRequestsInFlight) break;
    cv_.wait_for(lock, kPollInterval);
  }
  auto request = std::make_unique<Request>();
  request->message = std::move(message);
  Request* r = request.get();
  requests_.push_back(std::move(request));
  r->thread = std::thread([this, r] {
    Send(r->message, &r->cancelled);
    {
      std::lock_guard<std::mutex> done_lock(mu_);
      r->done = true;
    }
    cv_.notify_all();
  });
}

// A finished thread no longer needs mu_, so joining it here cannot block
// on us.
void McpRelay::ReapFinishedLocked() {
  for (auto it = requests_.begin(); it != requests_.end();) {
    if (!(*it)->done) {
      ++it;
      continue;
    }
    (*it)->thread.join();
    it = requests_.erase(it);
  }
}

// The client gave up on request `id` (and the server was told): its
// stream is abandoned, and its response, should one come, not written.
void McpRelay::MarkCancelled(const json& id) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& r : requests_) {
    if (r->message.id == id) r->cancelled.store(true);
  }
}

void McpRelay::Send(const McpMessage& message, const std::atomic<bool>* cancelled) {
  Deliver write = [this](const json& m) { WriteLine(MessageLine(m)); };
  Attempt attempt = SendOnce(message, cancelled, write);
  if (attempt.session_gone && RenewSession(attempt.session_id)) {
    attempt = SendOnce(message, cancelled, write);
  }
  if (!attempt.abandoned) WriteOutcome(attempt.outcome);
}

McpRelay::Attempt McpRelay::SendOnce(const McpMessage& message, const std::atomic<bool>* cancelled,
                                     const Deliver& deliver) {
  bool is_request = message.kind == McpMessageKind::kRequest;
  bool is_initialize = message.method == kInitialize;
  McpExchange x;
  x.body = message.text;
  Session session = CurrentSession();
  if (!is_initialize) {  // initialize starts a session: it is sent without one.
    x.session_id = session.id;
    x.protocol_version = session.protocol_version;
  }
  if (!is_request) x.timeout = kNotificationTimeout;
  x.abort_when = {&stopping_, interrupted_};
  if (cancelled != nullptr) x.abort_when.push_back(cancelled);

  // The session and its version are adopted before the client can see the
  // initialize response, and so before it can send anything that needs them.
  bool answered = false;
  auto note = [&](const json& m) {
    if (!is_request || !IsResponseTo(m, message.id)) return;
    answered = true;
    if (is_initialize) AdoptProtocolVersion(NegotiatedProtocolVersion(m));
  };
  auto on_head = [&](const McpAnswerHead& head) {
    if (is_initialize && head.http_status == 200) AdoptSession(head.session_id);
  };
  auto on_event = [&](const std::string& data) {
    for (const json& m : ServerMessages(data)) {
      note(m);
      deliver(m);
    }
    return !answered;  // The response is the stream's last message.
  };
  auto answer = http_->Exchange(x, on_head, on_event);

  Attempt out;
  out.session_id = x.session_id;
  if ((cancelled != nullptr && cancelled->load()) || Stopping()) {
    out.abandoned = true;
  } else if (!answer.ok()) {
    out.outcome = OutcomeForFailure(message, answer.status().message());
  } else if (answer->head.streamed) {
    if (is_request && !answered) {
      out.outcome =
          OutcomeForFailure(message, "the server's event stream ended without a response");
    }
  } else {
    if (is_initialize) {
      for (const json& m : ServerMessages(answer->body)) note(m);
    }
    out.session_gone = answer->head.http_status == 404 && !x.session_id.empty();
    out.outcome = OutcomeForAnswer(message, answer->head.http_status, answer->body);
  }
  return out;
}

// Starts a new session in place of `stale_id` by replaying the client's
// initialize (under an id of the relay's, its answer not written) and
// notifications/initialized. True when a session other than `stale_id`
// is current afterwards (another thread may have renewed it first).
bool McpRelay::RenewSession(const std::string& stale_id) {
  std::lock_guard<std::mutex> renewing(renew_mu_);
  std::string initialize;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (session_.id != stale_id) return !session_.id.empty();
    initialize = initialize_text_;
  }
  if (initialize.empty()) return false;
  WriteErr("coderunner mcp: the server no longer knows session " + stale_id +
           "; starting a new one\n");
  json init = json::parse(initialize, nullptr, false);
  if (!init.is_object()) return false;
  init["id"] = kRenewRequestId;
  ClientLine renewal = ParseClientLine(MessageLine(init));
  ClientLine initialized =
      ParseClientLine(MessageLine({{"jsonrpc", "2.0"}, {"method", kInitialized}}));
  Deliver drop = [](const json&) {};
  Attempt started = SendOnce(*renewal.message, nullptr, drop);
  std::string new_id = CurrentSession().id;
  if (started.abandoned || new_id.empty() || new_id == stale_id) {
    WriteErr("coderunner mcp: could not start a new session\n");
    return false;
  }
  Attempt confirmed = SendOnce(*initialized.message, nullptr, drop);
  WriteOutcome(confirmed.outcome);
  return true;
}

void McpRelay::StartServerStream() {
  std::lock_guard<std::mutex> lock(mu_);
  if (stream_thread_.joinable() || shut_down_) return;
  stream_thread_ = std::thread([this] { ServerStreamLoop(); });
}

// Relays the session's GET stream until stopping: opened again after it
// ends (the server may close it at any time), at once when the session
// changes; after a 404 once the session has been renewed; given up on a
// 405 (the server offers none) or after kMaxStreamFailures failures in a
// row.
void McpRelay::ServerStreamLoop() {
  int failures = 0;
  while (!Stopping()) {
    Session session;
    {
      std::lock_guard<std::mutex> lock(mu_);
      session = session_;
      session_changed_.store(false);
    }
    McpExchange x;
    x.method = "GET";
    x.session_id = session.id;
    x.protocol_version = session.protocol_version;
    x.abort_when = {&stopping_, interrupted_, &session_changed_};
    auto answer = http_->Exchange(x, nullptr, [this](const std::string& data) {
      for (const json& m : ServerMessages(data)) WriteLine(MessageLine(m));
      return true;
    });
    if (Stopping()) return;
    if (session_changed_.load()) continue;  // A stream of the session before.
    int status = answer.ok() ? answer->head.http_status : 0;
    if (status == 405) return;
    if (status == 404 && !session.id.empty()) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_.load() || session_.id != session.id; });
      failures = 0;
      continue;
    }
    failures = answer.ok() && answer->head.streamed ? 0 : failures + 1;
    if (failures >= kMaxStreamFailures) {
      std::string why = answer.ok() ? "HTTP " + std::to_string(status) : answer.status().message();
      WriteErr("coderunner mcp: not relaying the session's stream: " + why + "\n");
      return;
    }
    if (!Pause(kStreamReconnectDelay * (failures + 1))) return;
  }
}

bool McpRelay::Pause(milliseconds delay) {
  auto until = steady_clock::now() + delay;
  std::unique_lock<std::mutex> lock(mu_);
  while (!Stopping() && steady_clock::now() < until) cv_.wait_for(lock, kPollInterval);
  return !Stopping();
}

void McpRelay::Shutdown(milliseconds grace) {
  std::unique_lock<std::mutex> lock(mu_);
  if (shut_down_) return;
  shut_down_ = true;
  auto until = steady_clock::now() + grace;
  for (;;) {
    ReapFinishedLocked();
    if (requests_.empty() || interrupted_->load() || steady_clock::now() >= until) break;
    cv_.wait_for(lock, kPollInterval);
  }
  {
    std::lock_guard<std::mutex> out(out_mu_);
    stopping_.store(true);
  }
  lock.unlock();
  cv_.notify_all();
  EndSession();
  lock.lock();
  std::list<std::unique_ptr<Request>> left = std::move(requests_);
  std::thread stream = std::move(stream_thread_);
  lock.unlock();
  for (auto& r : left) r->thread.join();
  if (stream.joinable()) stream.join();
}

// DELETE /mcp, so the server ends the session (and cancels its work) now
// rather than when it idles out. 405 (the server does not let clients end
// sessions) and 404 (it already ended) are fine.
void McpRelay::EndSession() {
  Session session = CurrentSession();
  if (session.id.empty()) return;
  McpExchange x;
  x.method = "DELETE";
  x.session_id = session.id;
  x.protocol_version = session.protocol_version;
  x.timeout = kEndSessionTimeout;
  auto answer = http_->Exchange(x, nullptr, nullptr);
  int status = answer.ok() ? answer->head.http_status : 0;
  if (status == 405 || status == 404 || (status >= 200 && status < 300)) return;
  WriteErr("coderunner mcp: could not end session " + session.id + ": " +
           (answer.ok() ? "HTTP " + std::to_string(status) : answer.status().message()) + "\n");
}

}  // namespace coderunner::cli
