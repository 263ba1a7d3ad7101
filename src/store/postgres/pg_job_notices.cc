#include "coderunner/store/postgres/pg_job_notices.h"

#include <memory>
#include <string>
#include <utility>

#include "job_notice_codec.h"
#include "pg_connection.h"
#include "pg_notice_listener.h"

namespace coderunner::store {
namespace {

constexpr int kMinNoticesConnectTimeoutMs = 100;
constexpr const char* kNotifySql = "SELECT pg_notify(?1, ?2)";

}  // namespace

PgJobNotices::PgJobNotices(PgStoreOptions options, std::unique_ptr<PgConnection> publisher)
    : options_(std::move(options)), publisher_(std::move(publisher)) {}

PgJobNotices::~PgJobNotices() { Stop(); }

StatusOr<std::unique_ptr<PgJobNotices>> PgJobNotices::Open(const PgStoreOptions& options) {
  if (options.connect_timeout_ms < kMinNoticesConnectTimeoutMs) {
    return InvalidArgumentError("connect_timeout_ms must be >= 100", kReasonInvalidNotice);
  }
  CR_ASSIGN_OR_RETURN(
      std::unique_ptr<PgConnection> publisher,
      PgConnection::Connect(options.conninfo, options.password, options.connect_timeout_ms,
                            kJobNoticesPublisherApp, options.call_timeout_ms));
  return std::unique_ptr<PgJobNotices>(new PgJobNotices(options, std::move(publisher)));
}

StatusOr<PgConnection*> PgJobNotices::LivePublisher() {
  if (publisher_ != nullptr && publisher_->StillUp()) return publisher_.get();
  publisher_.reset();
  CR_ASSIGN_OR_RETURN(
      publisher_,
      PgConnection::Connect(options_.conninfo, options_.password, options_.connect_timeout_ms,
                            kJobNoticesPublisherApp, options_.call_timeout_ms));
  return publisher_.get();
}

Status PgJobNotices::Publish(const JobNotice& notice) {
  CR_RETURN_IF_ERROR(CheckJobNotice(notice));
  PgParams params;
  params.Bind(1, kJobNoticesChannel);
  params.Bind(2, EncodeJobNotice(notice));
  std::lock_guard<std::mutex> lock(publish_mu_);
  CR_ASSIGN_OR_RETURN(PgConnection * conn, LivePublisher());
  StatusOr<PgResult> sent = conn->Exec(kNotifySql, params, "publish a job notice");
  if (!sent.ok()) {
    if (conn->broken()) publisher_.reset();
    return sent.status();
  }
  return OkStatus();
}

Status PgJobNotices::Start(std::function<void(const JobNotice&)> on_notice,
                           std::function<void()> on_resync) {
  std::lock_guard<std::mutex> lock(listen_mu_);
  if (started_) return FailedPreconditionError("job notices already started");
  started_ = true;
  listener_ =
      std::make_unique<PgNoticeListener>(options_, std::move(on_notice), std::move(on_resync));
  return listener_->Start();
}

void PgJobNotices::Stop() {
  std::lock_guard<std::mutex> lock(listen_mu_);
  if (listener_ != nullptr) listener_->Stop();
}

}  // namespace coderunner::store
