#include "coderunner/sandboxes/live_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coderunner/common/ids.h"
#include "coderunner/isolation/container_removal.h"
#include "coderunner/isolation/job_egress.h"
#include "coderunner/isolation/safe_tree.h"
#include "coderunner/sandboxes/marker_cut.h"
#include "package_gateway.h"

namespace coderunner::sandboxes {
namespace {

using Clock = std::chrono::steady_clock;

// The driver opens the channel read-write (so it never reads EOF while the
// service restarts), which needs write permission for the job's group (the
// FIFO is root's, with the sandbox's group). The FIFO sits in the sandbox's
// own read-only workspace: nothing else can reach it. (A read-only mount
// does not stop FIFO writes: they never touch the filesystem.)
Status OpenChannelToJob(const std::string& path) {
  if (chmod(path.c_str(), 0660) != 0) {
    return InternalError("chmod " + path + ": " + strerror(errno), "workspace_io");
  }
  return OkStatus();
}

// The uid of a container from its inspect body ("uid:gid"); 65534 (what
// sandboxes ran as before each had its own) when it cannot be read.
int64_t UidOf(const nlohmann::json& inspect) {
  const auto& user = isolation::InspectField(inspect, "Config", "User");
  if (!user.is_string()) return isolation::kJobUid;
  const std::string u = user.get<std::string>();
  try {
    size_t used = 0;
    int64_t uid = std::stoll(u, &used);
    if (used > 0 && (used == u.size() || u[used] == ':') && uid > 0) return uid;
  } catch (const std::exception&) {
  }
  return isolation::kJobUid;
}

}  // namespace

LiveSandbox::LiveSandbox(engine::ContainerClient& containers,
                         const isolation::ContainerPolicy& policy, SandboxLayout layout,
                         isolation::JobSpec spec, ReplDriver driver)
    : containers_(containers),
      policy_(policy),
      layout_(std::move(layout)),
      spec_(std::move(spec)),
      driver_(std::move(driver)) {}

LiveSandbox::~LiveSandbox() {
  // The container lives on (a restart re-adopts it and watches it again):
  // end our watch, stream and gateway only.
  if (layout_.gateway != nullptr) layout_.gateway->Close(spec_.id);
  watch_.reset();
  if (attach_) {
    attach_->Abort();
    attach_->Join();
  }
  if (channel_fd_ >= 0) close(channel_fd_);
}

StatusOr<std::unique_ptr<LiveSandbox>> LiveSandbox::Launch(engine::ContainerClient& containers,
                                                           const isolation::ContainerPolicy& policy,
                                                           const SandboxLayout& layout,
                                                           isolation::JobSpec spec,
                                                           ReplDriver driver,
                                                           const std::string& volume_dir) {
  std::unique_ptr<LiveSandbox> s(
      new LiveSandbox(containers, policy, layout, std::move(spec), std::move(driver)));
  s->uid_ = s->spec_.volume.uid;
  if (s->spec_.volume.id.empty()) {
    CR_ASSIGN_OR_RETURN(s->uid_lease_, layout.uids->Lease());
    s->uid_ = s->uid_lease_.uid();
  }
  auto ws = isolation::Workspace::Create(layout.workspace_root, s->spec_.id, s->uid_);
  if (!ws.ok()) return ws.status();
  s->workspace_ = std::move(*ws);
  auto fail = [&](Status st) -> StatusOr<std::unique_ptr<LiveSandbox>> {
    (void)s->Destroy();
    return st;
  };
  Status written = s->workspace_->WriteFile(s->driver_.workspace_name, s->driver_.source);
  if (!written.ok()) return fail(written);
  Status gateway = s->OpenGateway(true);
  if (!gateway.ok()) return fail(gateway);
  Status channel = s->NewChannel();
  if (!channel.ok()) return fail(channel);
  if (!s->spec_.volume.id.empty()) {
    s->output_dir_ = volume_dir;
    s->own_output_ = false;
    s->volume_guard_ = std::make_unique<VolumeGuard>(volume_dir, s->spec_.volume);
    s->volume_guard_->Settle();
  } else {
    auto out = isolation::CreateOutputDir(layout.output_root, s->spec_.id, s->uid_);
    if (!out.ok()) return fail(out.status());
    s->output_dir_ = *out;
  }
  Status started = s->StartContainer();
  if (!started.ok()) return fail(started);
  s->workspace_->Keep();
  return s;
}

StatusOr<std::unique_ptr<LiveSandbox>> LiveSandbox::Adopt(
    engine::ContainerClient& containers, const isolation::ContainerPolicy& policy,
    const SandboxLayout& layout, isolation::JobSpec spec, ReplDriver driver,
    const std::string& container_id, const std::string& volume_dir) {
  std::unique_ptr<LiveSandbox> s(
      new LiveSandbox(containers, policy, layout, std::move(spec), std::move(driver)));
  auto state = containers.Inspect(container_id);
  if (!state.ok()) return state.status();
  if (!state->running) {
    return FailedPreconditionError("sandbox container " + container_id + " is " + state->status,
                                   "sandbox_container_stopped");
  }
  // The uid it runs as is taken again, so no new container gets it.
  s->uid_ = UidOf(state->raw);
  s->uid_lease_ = layout.uids->Claim(s->uid_);
  auto ws = isolation::Workspace::Open(layout.workspace_root, s->spec_.id, s->uid_);
  if (!ws.ok()) return ws.status();
  s->workspace_ = std::move(*ws);
  s->workspace_->Keep();
  CR_RETURN_IF_ERROR(s->OpenGateway(false));
  s->own_output_ = s->spec_.volume.id.empty();
  s->output_dir_ = s->own_output_ ? layout.output_root + "/" + s->spec_.id : volume_dir;
  if (!s->own_output_) {
    s->volume_guard_ = std::make_unique<VolumeGuard>(volume_dir, s->spec_.volume);
    s->volume_guard_->Settle();
  }
  CR_RETURN_IF_ERROR(s->OpenChannel());
  s->container_id_ = container_id;
  CR_RETURN_IF_ERROR(s->AttachTo(container_id));
  // The last service's proxy went with it; the driver's HTTP_PROXY names
  // the same port.
  if (s->spec_.egress) CR_RETURN_IF_ERROR(s->OpenEgress(*state));
  s->WatchOutput();
  return s;
}

Status LiveSandbox::OpenEgress(const engine::ContainerState& state) {
  CR_ASSIGN_OR_RETURN(std::unique_ptr<egress::EgressProxy> proxy,
                      isolation::OpenEgressProxy(state, *spec_.egress));
  std::lock_guard<std::mutex> lock(egress_mu_);
  egress_ = std::move(proxy);
  return OkStatus();
}

std::optional<egress::EgressLog> LiveSandbox::DrainEgress() {
  std::lock_guard<std::mutex> lock(egress_mu_);
  if (egress_ == nullptr) return std::nullopt;
  return egress_->Drain();
}

Status LiveSandbox::OpenGateway(bool write_shims) {
  if (layout_.gateway == nullptr || driver_.package_ecosystem.empty()) return OkStatus();
  // The shims go first on PATH (kShimDir): `pip install` and `npm install`
  // ask the gateway; their other commands run the image's own.
  for (const auto& [name, file] : driver_.shims) {
    if (!write_shims) break;
    CR_RETURN_IF_ERROR(
        workspace_->WriteProgram(std::string(kShimDir) + "/" + name, DriverSource(file)));
  }
  return layout_.gateway->Open(spec_.id, workspace_->path(), uid_);
}

Status LiveSandbox::NewChannel() {
  if (channel_fd_ >= 0) close(channel_fd_);
  channel_fd_ = -1;
  CR_RETURN_IF_ERROR(isolation::RemoveTreeEntry(workspace_->path(), kChannelFifo));
  auto fifo = workspace_->CreateFifo(kChannelFifo);
  if (!fifo.ok()) return fifo.status();
  channel_fd_ = *fifo;
  return OpenChannelToJob(workspace_->path() + "/" + kChannelFifo);
}

Status LiveSandbox::OpenChannel() {
  if (channel_fd_ >= 0) close(channel_fd_);
  std::string path = workspace_->path() + "/" + kChannelFifo;
  // Read-write: never blocks and never fails for want of a reader; writes
  // wait in the pipe until the driver reads them.
  channel_fd_ = open(path.c_str(), O_RDWR | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
  if (channel_fd_ < 0) {
    return NotFoundError("open sandbox channel " + path + ": " + strerror(errno),
                         "sandbox_channel_missing");
  }
  return OkStatus();
}

Status LiveSandbox::AttachTo(const std::string& id) {
  {
    std::lock_guard<std::mutex> lock(feed_mu_);
    demux_ = std::make_unique<engine::StreamDemuxer>(
        [this](engine::StreamId stream, std::string_view bytes) {
          // Called with feed_mu_ held (from OnChunk).
          if (current_ == nullptr || call_ended_) return;
          const bool is_stderr = stream == engine::StreamId::kStderr;
          (is_stderr ? current_->err : current_->out).Feed(bytes);
          SendSettled(*current_, is_stderr);
          call_ended_ = current_->out.found() && current_->err.found();
        });
  }
  // Unbounded: the stream lives as long as the sandbox.
  attach_ = std::make_unique<isolation::AttachedContainer>(
      containers_, id, std::chrono::milliseconds(0),
      [this](std::string_view chunk) { return OnChunk(chunk); });
  auto wake = attach_->WaitAttached(Clock::now() + std::chrono::seconds(10));
  if (wake != isolation::AttachedContainer::Wake::kAttached) {
    Status s = attach_->status();
    return s.ok() ? DeadlineExceededError("attach to sandbox container timed out") : s;
  }
  return OkStatus();
}

Status LiveSandbox::StartContainer() {
  isolation::OutputMount output{output_dir_,
                                false,
                                layout_.output_caps.max_total_bytes,
                                layout_.output_caps.max_file_bytes,
                                layout_.output_caps.max_files,
                                output_dir_};
  if (!own_output_) {
    // A persistent volume, with its quota. No rollback by init: it would
    // undo everything since the container started (earlier calls too); the
    // service rolls back the one call that broke the quota (see Call).
    const isolation::VolumeMount& v = spec_.volume;
    output = {v.engine_name, false, v.quota_bytes, 0, v.max_files, output_dir_};
  }
  isolation::ContainerContext ctx{spec_, workspace_->path(), false, output};
  ctx.uid = uid_;
  nlohmann::json body = policy_.BuildCreateBody(ctx);
  body["Labels"][isolation::kLabelSandbox] = spec_.id;
  // A fresh name per container: the old one may still be going away.
  auto id = containers_.Create(body, "coderunner-" + spec_.id + "-" + NewId("c").substr(2, 8));
  if (!id.ok()) return id.status();
  container_id_ = *id;
  Status s = AttachTo(container_id_);
  if (s.ok()) s = containers_.Start(container_id_);
  if (s.ok()) {
    auto state = containers_.Inspect(container_id_);
    // The driver starts once its proxy listens (init waits for it).
    if (state.ok() && spec_.egress) s = OpenEgress(*state);
    if (s.ok()) s = state.ok() ? policy_.Verify(ctx, state->raw) : state.status();
    if (s.ok() && !state->running) {
      s = InternalError(
          "sandbox container exited at start (exit " + std::to_string(state->exit_code) + ")",
          "sandbox_start_failed");
    }
  }
  if (s.ok()) {
    WatchOutput();
  } else {
    RemoveContainer();
  }
  return s;
}

void LiveSandbox::RemoveContainer() {
  if (container_id_.empty()) return;
  // Often just killed (by the watch, or a call's timeout) and still exiting.
  Status removed = isolation::RemoveExitingContainer(containers_, container_id_);
  if (!removed.ok()) {
    spdlog::warn("sandbox {}: remove container {}: {}", spec_.id, container_id_,
                 removed.ToString());
    unremoved_containers_.push_back(container_id_);
  }
  if (attach_) {
    attach_->EndAfterRemoval(std::chrono::milliseconds(2000));
    attach_.reset();
  }
  {
    // Its requests end with it; the next container gets a proxy of its own.
    std::lock_guard<std::mutex> lock(egress_mu_);
    egress_.reset();
  }
  // Only once it is gone: until then its processes may still write.
  if (removed.ok() && watch_ != nullptr) {
    if (removed_breach_.empty()) removed_breach_ = watch_->violation();
    watch_.reset();
  }
  container_id_.clear();
}

Status LiveSandbox::Restart(const std::string& why) {
  spdlog::warn("sandbox {}: replacing its container ({}): its state is lost", spec_.id, why);
  RemoveContainer();
  // coderunner-init would stop the new container at once for what broke a
  // bound of /output (the old one's last call, or one between calls).
  if (ResetOutputIfOverBounds()) {
    spdlog::warn("sandbox {}: /output was over its bounds and was emptied", spec_.id);
    output_reset_ = true;
  }
  // A process a call left behind may have broken the volume's quota between
  // calls (coderunner-init then stopped the container): those writes go too.
  if (RollBackVolume()) {
    spdlog::warn(
        "sandbox {}: volume {} was over its quota; writes since the last call were removed",
        spec_.id, spec_.volume.id);
  }
  removed_breach_.clear();
  // A new pipe: whatever the old driver left unread must not reach the new one.
  CR_RETURN_IF_ERROR(NewChannel());
  return StartContainer();
}

bool LiveSandbox::OnChunk(std::string_view chunk) {
  std::lock_guard<std::mutex> lock(feed_mu_);
  if (!demux_->Feed(chunk).ok()) return false;
  feed_cv_.notify_all();
  return true;
}

bool LiveSandbox::alive() const { return attach_ != nullptr && !attach_->done(); }

Status LiveSandbox::Destroy() {
  while (!unremoved_containers_.empty()) {
    CR_RETURN_IF_ERROR(
        isolation::RemoveExitingContainer(containers_, unremoved_containers_.back()));
    unremoved_containers_.pop_back();
  }
  if (!container_id_.empty()) {
    Status removed = isolation::RemoveExitingContainer(containers_, container_id_);
    if (!removed.ok()) return removed;
    watch_.reset();
    if (attach_) {
      attach_->EndAfterRemoval(std::chrono::milliseconds(2000));
      attach_.reset();
    }
    container_id_.clear();
  }
  if (channel_fd_ >= 0) {
    close(channel_fd_);
    channel_fd_ = -1;
  }
  if (workspace_) (void)workspace_->Remove();
  if (own_output_ && !output_dir_.empty()) (void)isolation::RemoveTree(output_dir_);
  uid_lease_.Release();  // No process of the sandbox is left.
  return OkStatus();
}

}  // namespace coderunner::sandboxes
