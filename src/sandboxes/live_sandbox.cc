#include "coderunner/sandboxes/live_sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "coderunner/common/ids.h"
#include "coderunner/common/sha256.h"
#include "coderunner/isolation/init_trailer.h"
#include "coderunner/isolation/safe_tree.h"
#include "coderunner/sandboxes/marker_cut.h"

namespace coderunner::sandboxes {
namespace {

using Clock = std::chrono::steady_clock;

int64_t MsSince(Clock::time_point t0) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
}

// How long past a call's timeout the driver has to end it itself (its own
// timer, or the SIGINT we send) before the container is replaced.
constexpr auto kDriverGrace = std::chrono::milliseconds(1500);
constexpr auto kInterruptGrace = std::chrono::milliseconds(1000);

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
  // The container lives on (a restart re-adopts it): end our stream only.
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
  s->own_output_ = s->spec_.volume.id.empty();
  s->output_dir_ = s->own_output_ ? layout.output_root + "/" + s->spec_.id : volume_dir;
  if (!s->own_output_) {
    s->volume_guard_ = std::make_unique<VolumeGuard>(volume_dir, s->spec_.volume);
    s->volume_guard_->Settle();
  }
  CR_RETURN_IF_ERROR(s->OpenChannel());
  s->container_id_ = container_id;
  CR_RETURN_IF_ERROR(s->AttachTo(container_id));
  return s;
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
          (stream == engine::StreamId::kStderr ? current_->err : current_->out).Feed(bytes);
          call_ended_ = current_->out.found() && current_->err.found();
        });
  }
  // Unbounded: the stream lives as long as the sandbox.
  attach_ =
      std::make_unique<isolation::AttachedContainer>(containers_, id, std::chrono::milliseconds(0));
  attach_->SetSink([this](std::string_view chunk) { return OnChunk(chunk); });
  auto wake = attach_->WaitAttached(Clock::now() + std::chrono::seconds(10));
  if (wake != isolation::AttachedContainer::Wake::kAttached) {
    Status s = attach_->status();
    return s.ok() ? DeadlineExceededError("attach to sandbox container timed out") : s;
  }
  return OkStatus();
}

Status LiveSandbox::StartContainer() {
  isolation::OutputMount output{output_dir_, false, layout_.output_caps.max_total_bytes,
                                layout_.output_caps.max_file_bytes, layout_.output_caps.max_files};
  if (!own_output_) {
    // A persistent volume, with its quota. No rollback by init: it would
    // undo everything since the container started (earlier calls too); the
    // service rolls back the one call that broke the quota (see Call).
    const isolation::VolumeMount& v = spec_.volume;
    output = {v.engine_name, false, v.quota_bytes, 0, v.max_files};
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
    s = state.ok() ? policy_.Verify(ctx, state->raw) : state.status();
    if (s.ok() && !state->running) {
      s = InternalError(
          "sandbox container exited at start (exit " + std::to_string(state->exit_code) + ")",
          "sandbox_start_failed");
    }
  }
  if (!s.ok()) RemoveContainer();
  return s;
}

void LiveSandbox::RemoveContainer() {
  if (container_id_.empty()) return;
  Status removed = containers_.Remove(container_id_);
  if (!removed.ok()) {
    spdlog::warn("sandbox {}: remove container {}: {}", spec_.id, container_id_,
                 removed.ToString());
  }
  if (attach_) {
    attach_->EndAfterRemoval(std::chrono::milliseconds(2000));
    attach_.reset();
  }
  container_id_.clear();
}

bool LiveSandbox::ResetOutputIfOverBounds() {
  // A volume is never emptied: each call's writes that broke its quota are
  // rolled back instead (RollBackVolume).
  if (!own_output_) return false;
  const isolation::ArtifactCaps& caps = layout_.output_caps;
  isolation::TreeWalkOptions options;
  options.max_depth = caps.max_depth;
  options.max_entries = caps.max_files;
  auto listing = isolation::ListTree(output_dir_, options);
  bool over = !listing.ok() || listing->truncated;
  int64_t total = 0;
  if (listing.ok()) {
    for (const auto& p : listing->problems) over |= p.reason == "too_deep";
    for (const auto& f : listing->files) {
      total += f.size;
      over |= f.size > caps.max_file_bytes;
    }
  }
  over |= total > caps.max_total_bytes;
  if (!over) return false;
  (void)isolation::RemoveTree(output_dir_);
  (void)isolation::CreateOutputDir(layout_.output_root, spec_.id, uid_);
  hashes_.clear();
  return true;
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

Status LiveSandbox::WriteFrame(const std::string& frame, Clock::time_point deadline) {
  size_t done = 0;
  while (done < frame.size()) {
    ssize_t n = write(channel_fd_, frame.data() + done, frame.size() - done);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno != EAGAIN && errno != EINTR) {
      return InternalError(std::string("write to sandbox channel: ") + strerror(errno),
                           "sandbox_channel");
    }
    // The pipe is full: the driver is reading (a large call) or gone.
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0 || !alive()) {
      return DeadlineExceededError("the sandbox did not take the call", "sandbox_unresponsive");
    }
    pollfd p{channel_fd_, POLLOUT, 0};
    (void)poll(&p, 1, static_cast<int>(std::min<int64_t>(left.count(), 100)));
  }
  return OkStatus();
}

bool LiveSandbox::RollBackVolume() {
  if (volume_guard_ == nullptr || !volume_guard_->RollBackIfOver()) return false;
  hashes_.clear();
  return true;
}

CallResult LiveSandbox::Execute(const std::vector<isolation::InputFile>& files,
                                const std::string& code, int64_t timeout_ms) {
  std::string restart_why;
  CallResult r = Call(files, code, timeout_ms, &restart_why);
  if (RollBackVolume()) {
    r.status = isolation::RunStatus::kFailed;
    r.error = FailedPreconditionError(
        "the call wrote more than volume " + spec_.volume.id + " holds (size_bytes " +
            std::to_string(spec_.volume.quota_bytes) +
            " or its file count); the files it created or changed were removed",
        "volume_quota_exceeded");
  }
  // Only now, with the volume back under its quota: coderunner-init checks
  // /output's bounds at start and would stop the replacement at once.
  if (!restart_why.empty()) {
    Status restarted = Restart(restart_why);
    if (!restarted.ok()) {
      spdlog::warn("sandbox {}: restart failed: {}", spec_.id, restarted.ToString());
      r.error = restarted;
    }
  }
  if (volume_guard_) volume_guard_->Settle();
  if (output_reset_) {
    output_reset_ = false;
    r.output_reset = true;
  }
  return r;
}

CallResult LiveSandbox::Call(const std::vector<isolation::InputFile>& files,
                             const std::string& code, int64_t timeout_ms,
                             std::string* restart_why) {
  const auto t0 = Clock::now();
  CallResult r;
  if (!alive()) {
    Status s = Restart("its container is gone");
    r.state_lost = true;
    if (!s.ok()) {
      r.error = s;
      return r;
    }
  }
  for (const auto& f : files) {
    Status w = workspace_->ReplaceFile(f.path, f.content);
    if (!w.ok()) {
      r.error = w;
      return r;
    }
  }
  const std::string nonce = NewId("eof").substr(4);
  const std::string end = "\"eof\":\"" + nonce + "\"}\n";
  const size_t cap = static_cast<size_t>(spec_.limits.output_bytes);
  CallStreams io{MarkerCut(end, cap), MarkerCut(end, cap)};
  {
    std::lock_guard<std::mutex> lock(feed_mu_);
    call_ended_ = false;
    current_ = &io;
  }
  const auto deadline = t0 + std::chrono::milliseconds(timeout_ms);
  Status written = WriteFrame(EncodeCall(nonce, timeout_ms, code), deadline + kDriverGrace);
  bool ended = false;
  bool interrupted = false;
  if (written.ok()) {
    std::unique_lock<std::mutex> lock(feed_mu_);
    auto limit = deadline + kDriverGrace;
    for (;;) {
      if (call_ended_) {
        ended = true;
        break;
      }
      if (!alive()) break;
      auto now = Clock::now();
      if (now >= limit) {
        if (interrupted || !driver_.interrupts_calls) break;
        // The driver's own timer did not end it (a blocking C call): a
        // SIGINT through PID 1 may; otherwise the container is replaced.
        interrupted = true;
        lock.unlock();
        (void)containers_.Kill(container_id_, "SIGINT");
        lock.lock();
        limit = Clock::now() + kInterruptGrace;
        continue;
      }
      // Output wakes us; a dead stream does not, hence the bounded wait.
      feed_cv_.wait_for(lock,
                        std::min<Clock::duration>(limit - now, std::chrono::milliseconds(50)));
    }
    current_ = nullptr;
  } else {
    std::lock_guard<std::mutex> lock(feed_mu_);
    current_ = nullptr;
  }
  r.wall_ms = MsSince(t0);
  std::optional<isolation::InitTrailer> trailer;
  if (ended) {
    trailer = isolation::ParseInitTrailer(io.err.marker());
  } else {
    // No reply: what came is the output; init's own trailer may end it (the
    // driver died and init reported how).
    io.out.Flush();
    io.err.Flush();
    trailer = isolation::ParseInitTrailer(io.err.out().tail());
    if (trailer) io.err.out().DropSuffix(trailer->length);
  }
  r.stdout_truncated = io.out.out().truncated();
  r.stderr_truncated = io.err.out().truncated();
  r.stdout_data = io.out.out().TakeKept();
  r.stderr_data = io.err.out().TakeKept();
  if (ended && trailer) {
    r.exit_code = trailer->exit_code;
    r.run_ms = trailer->wall_us / 1000;
    if (trailer->cpu_us >= 0) r.cpu_ms = trailer->cpu_us / 1000;
    r.memory_peak_bytes = trailer->memory_peak_bytes;
    if (trailer->timed_out) {
      r.status = isolation::RunStatus::kTimeout;
    } else {
      r.status =
          r.exit_code == 0 ? isolation::RunStatus::kSucceeded : isolation::RunStatus::kFailed;
    }
    return r;
  }
  // The call did not end normally: find out why, then replace the container.
  r.state_lost = true;
  bool oom = false;
  std::string why;
  if (!written.ok()) {
    why = written.message();
  } else if (alive()) {
    why = "a call ran past its timeout and could not be interrupted";
    r.status = isolation::RunStatus::kTimeout;
    r.exit_code = 128 + SIGKILL;
  } else {
    // The driver died. init's own trailer (when it got to write one) says
    // how; the engine's state covers the rest.
    auto state = containers_.Inspect(container_id_);
    if (trailer) {
      r.exit_code = trailer->exit_code;
      oom = trailer->oom_kills > 0;
      if (!trailer->output_violation.empty()) {
        r.error =
            FailedPreconditionError("the sandbox's /output broke a bound (" +
                                        trailer->output_violation + "); the sandbox was restarted",
                                    "output_" + trailer->output_violation);
      }
    } else if (state.ok()) {
      r.exit_code = state->exit_code;
    }
    if (state.ok() && state->oom_killed) oom = true;
    why =
        oom ? "out of memory" : "its interpreter exited (code " + std::to_string(r.exit_code) + ")";
    r.status = oom ? isolation::RunStatus::kOom : isolation::RunStatus::kFailed;
  }
  *restart_why = why.empty() ? std::string("the call broke it") : why;
  if (!written.ok()) {
    r.status = isolation::RunStatus::kError;
    r.error = written;
  }
  return r;
}

Status LiveSandbox::Destroy() {
  Status removed = OkStatus();
  if (!container_id_.empty()) {
    removed = containers_.Remove(container_id_);
    if (!removed.ok() && removed.code() != StatusCode::kNotFound) return removed;
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

std::vector<isolation::Artifact> LiveSandbox::ListOutput() {
  std::vector<isolation::Artifact> out;
  isolation::TreeWalkOptions options;
  options.max_depth = layout_.output_caps.max_depth;
  options.max_entries = layout_.output_caps.max_files;
  auto listing = isolation::ListTree(output_dir_, options);
  if (!listing.ok()) return out;
  std::map<std::string, HashEntry> next;
  for (const auto& f : listing->files) {
    auto cached = hashes_.find(f.path);
    if (cached != hashes_.end() && cached->second.size == f.size &&
        cached->second.modified_ms == f.modified_ms) {
      out.push_back({f.path, f.size, cached->second.sha256, f.allocated_bytes});
      next[f.path] = cached->second;
      continue;
    }
    auto fd = isolation::OpenTreeFile(output_dir_, f.path, layout_.output_caps.max_depth);
    if (!fd.ok()) continue;
    Sha256 sha;
    char buf[65536];
    int64_t size = 0;
    for (;;) {
      ssize_t n = read(fd->get(), buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      sha.Update(std::string_view(buf, static_cast<size_t>(n)));
      size += n;
    }
    std::string hex = sha.HexDigest();
    out.push_back({f.path, size, hex, f.allocated_bytes});
    next[f.path] = {size, f.modified_ms, hex};
  }
  hashes_.swap(next);
  return out;
}

StatusOr<isolation::UniqueFd> LiveSandbox::OpenOutputFile(const std::string& path) {
  return isolation::OpenTreeFile(output_dir_, path, layout_.output_caps.max_depth);
}

}  // namespace coderunner::sandboxes
