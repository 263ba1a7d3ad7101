#include "pg_notice_listener.h"

#include <libpq-fe.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <utility>

#include "coderunner/store/postgres/pg_job_notices.h"
#include "job_notice_codec.h"
#include "store_errors.h"

namespace coderunner::store {
namespace {

constexpr const char* kListenSql = "LISTEN coderunner_jobs";

// libpq's notice processor for the listener's session: what the server
// says outside a query (e.g. that it terminates the session) goes to the
// log instead of stderr.
void LogServerNotice(void* /*arg*/, const char* message) {
  std::string text = message;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  spdlog::info("job notices: server says: {}", text);
}

}  // namespace

PgNoticeListener::PgNoticeListener(PgStoreOptions options,
                                   std::function<void(const JobNotice&)> on_notice,
                                   std::function<void()> on_resync)
    : options_(std::move(options)),
      on_notice_(std::move(on_notice)),
      on_resync_(std::move(on_resync)) {}

PgNoticeListener::~PgNoticeListener() {
  Stop();
  if (wake_fd_ >= 0) close(wake_fd_);
}

Status PgNoticeListener::Start() {
  wake_fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake_fd_ < 0) {
    return InternalError(std::string("notice listener: eventfd: ") + std::strerror(errno),
                         kReasonStoreError);
  }
  (void)Subscribe();  // On failure the thread retries.
  thread_ = std::thread([this] { Loop(); });
  return OkStatus();
}

void PgNoticeListener::Stop() {
  stopping_.store(true);
  if (wake_fd_ >= 0) {
    const uint64_t one = 1;
    (void)!write(wake_fd_, &one, sizeof(one));
  }
  if (thread_.joinable()) thread_.join();
  conn_.reset();  // Ends the session (and its LISTEN) now, not at destruction.
}

Status PgNoticeListener::Subscribe() {
  conn_.reset();
  StatusOr<std::unique_ptr<PgConnection>> connected =
      PgConnection::Connect(options_.conninfo, options_.password, options_.connect_timeout_ms,
                            kJobNoticesListenerApp, options_.call_timeout_ms);
  if (!connected.ok()) {
    if (!warned_) {  // Once per outage.
      spdlog::warn("job notices: cannot listen ({}); retrying", connected.status().message());
    }
    warned_ = true;
    return connected.status();
  }
  warned_ = false;
  std::unique_ptr<PgConnection> conn = std::move(connected).value();
  PQsetNoticeProcessor(conn->raw(), &LogServerNotice, nullptr);
  CR_RETURN_IF_ERROR(conn->ExecScript(kListenSql, "listen for job notices"));
  conn_ = std::move(conn);
  return OkStatus();
}

void PgNoticeListener::Loop() {
  int backoff_ms = kListenFirstBackoffMs;
  while (!stopping_.load()) {
    if (conn_ == nullptr) {
      if (WaitForStop(backoff_ms)) return;
      Status subscribed = Subscribe();
      if (!subscribed.ok()) {
        backoff_ms = std::min(backoff_ms * 2, kListenMaxBackoffMs);
        continue;
      }
      backoff_ms = kListenFirstBackoffMs;
      spdlog::info("job notices: listening again; resyncing");
      on_resync_();
    }
    Deliver();  // What libpq read along with earlier replies.
    if (stopping_.load() || WaitForStop(-1)) return;
    Receive();
  }
}

bool PgNoticeListener::WaitForStop(int timeout_ms) {
  pollfd fds[2] = {{wake_fd_, POLLIN, 0}, {-1, POLLIN, 0}};
  if (conn_ != nullptr) {
    fds[1].fd = PQsocket(conn_->raw());
    if (fds[1].fd < 0) return stopping_.load();  // A bad session: Receive drops it.
  }
  int ready = 0;
  do {  // A signal restarts the whole timeout: rare enough not to matter.
    ready = poll(fds, 2, timeout_ms);
  } while (ready < 0 && errno == EINTR && !stopping_.load());
  return stopping_.load() || (ready > 0 && fds[0].revents != 0);
}

void PgNoticeListener::Receive() {
  PGconn* raw = conn_->raw();
  const bool read = PQconsumeInput(raw) != 0;
  Deliver();  // Notices that came before an end of the session count too.
  if (!read || PQstatus(raw) != CONNECTION_OK) {
    std::string why = PQerrorMessage(raw);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    spdlog::warn("job notices: lost the listening session ({}); reconnecting", why);
    conn_.reset();
  }
}

void PgNoticeListener::Deliver() {
  while (conn_ != nullptr && !stopping_.load()) {
    std::unique_ptr<PGnotify, void (*)(void*)> notify(PQnotifies(conn_->raw()), &PQfreemem);
    if (notify == nullptr) return;
    if (notify->relname == nullptr || std::strcmp(notify->relname, kJobNoticesChannel) != 0) {
      continue;
    }
    std::optional<JobNotice> notice =
        notify->extra == nullptr ? std::nullopt : DecodeJobNotice(notify->extra);
    if (notice) on_notice_(*notice);
  }
}

}  // namespace coderunner::store
