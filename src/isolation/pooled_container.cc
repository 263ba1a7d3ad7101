// The life of one warm container: prepared (created, attached, started,
// verified against the policy) by WarmPool's fill loop, destroyed when
// retired or at Stop.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>

#include "coderunner/common/ids.h"
#include "coderunner/isolation/artifacts.h"
#include "coderunner/isolation/container_removal.h"
#include "coderunner/isolation/init_trailer.h"
#include "coderunner/isolation/warm_pool.h"
#include "coderunner/isolation/workspace.h"

namespace coderunner::isolation {
namespace {

// How long a preload may take, a fill thread waiting: ample for the data
// stack's ~0.5 s of CPU on a loaded machine.
constexpr auto kPrestartReadyBound = std::chrono::seconds(30);
// What of the stream before the marker is kept to find it: the prestart
// writes nothing else.
constexpr size_t kReadyWatchBytes = 4096;

// Watches a preloading container's stream for kPrestartReadyMarker.
struct ReadyWatch {
  std::mutex mu;
  std::condition_variable cv;
  std::string seen;
  bool ready = false;
};

// Set before the container starts, so that the marker cannot pass unseen.
std::shared_ptr<ReadyWatch> WatchForReady(AttachedContainer& attach) {
  auto watch = std::make_shared<ReadyWatch>();
  attach.SetSink([watch](std::string_view chunk) {
    std::lock_guard<std::mutex> lock(watch->mu);
    watch->seen.append(chunk);
    watch->ready = watch->seen.find(kPrestartReadyMarker) != std::string::npos;
    if (watch->seen.size() > kReadyWatchBytes) watch->seen.erase(0, watch->seen.size() / 2);
    watch->cv.notify_all();
    return true;
  });
  return watch;
}

// Waits until the prestarted interpreter wrote the marker (it loaded its
// preload); then the stream has no sink again, for the job to set its own.
Status AwaitReady(AttachedContainer& attach, ReadyWatch& watch) {
  std::unique_lock<std::mutex> lock(watch.mu);
  watch.cv.wait_for(lock, kPrestartReadyBound, [&] { return watch.ready || attach.done(); });
  const bool loaded = watch.ready;
  lock.unlock();
  attach.SetSink(nullptr);
  if (loaded) return OkStatus();
  return DeadlineExceededError("the prestarted interpreter did not report its preload loaded",
                               "pool_prestart_not_ready");
}

}  // namespace

PooledContainer::~PooledContainer() {
  if (go_fd >= 0) close(go_fd);
}

StatusOr<std::unique_ptr<PooledContainer>> WarmPool::Prepare(const JobSpec& spec) {
  auto c = std::make_unique<PooledContainer>();
  c->slot = NewId(kSlotPrefix);
  c->language = spec.language.name;
  CR_ASSIGN_OR_RETURN(c->uid, uids_.Lease());
  const int64_t uid = c->uid.uid();
  auto ws = Workspace::Create(workspace_root_, c->slot, uid);
  if (!ws.ok()) return ws.status();
  c->workspace = std::move(*ws);
  auto fd = c->workspace->CreateFifo(kGoFifo);
  if (!fd.ok()) return fd.status();
  c->go_fd = *fd;
  if (!artifacts_root_.empty()) {
    auto dir = CreateOutputDir(artifacts_root_, c->slot, uid);
    if (!dir.ok()) return dir.status();
    c->output_dir = *dir;
    c->output = {c->output_dir,        false,           caps_.max_total_bytes,
                 caps_.max_file_bytes, caps_.max_files, c->output_dir};
  }
  JobSpec t = TemplateOf(spec, c->slot);
  ContainerContext ctx = ContextFor(t, c->workspace->path(), c->output);
  ctx.uid = uid;
  const std::string name = "coderunner-" + c->slot;
  auto id = containers_.Create(policy_.BuildCreateBody(ctx), name);
  if (!id.ok()) {
    if (!c->output_dir.empty()) (void)RemoveTree(c->output_dir);
    // The connection may have died after the engine created the container
    // but before its answer arrived: remove it by name once the engine is
    // back (a NotFound then just drops it).
    if (id.status().code() == StatusCode::kUnavailable) RememberUnremoved(name);
    return id.status();
  }
  c->id = *id;
  auto fail = [&](Status s) -> StatusOr<std::unique_ptr<PooledContainer>> {
    Destroy(std::move(c));
    return s;
  };
  if (const std::string& runtime = policy_.RuntimeOf(t); !runtime.empty()) {
    auto actual = containers_.OciRuntime(c->id);
    if (!actual.ok()) return fail(actual.status());
    if (*actual != runtime) {
      return fail(FailedPreconditionError(
          "pool container runs under " + *actual + ", not " + runtime, "runtime_not_applied"));
    }
  }
  // Attached before start, as for a cold job: no output can be missed.
  c->attach = std::make_unique<AttachedContainer>(containers_, c->id, attach_bound_);
  auto wake = c->attach->WaitAttached(Clock::now() + std::chrono::seconds(10));
  if (wake != AttachedContainer::Wake::kAttached) {
    Status s = c->attach->status();
    return fail(s.ok() ? DeadlineExceededError("attach to pool container timed out") : s);
  }
  std::shared_ptr<ReadyWatch> ready = t.preload ? WatchForReady(*c->attach) : nullptr;
  Status started = containers_.Start(c->id);
  if (!started.ok()) return fail(started);
  c->started = true;
  // The engine's own view of what it started must carry the policy.
  auto state = containers_.Inspect(c->id);
  if (!state.ok()) return fail(state.status());
  if (!state->running) {
    return fail(InternalError(
        "pool container exited at start (exit " + std::to_string(state->exit_code) + ")",
        "pool_container_died"));
  }
  Status verified = policy_.Verify(ctx, state->raw);
  if (!verified.ok()) return fail(verified);
  // A container whose interpreter preloads is ready once it has loaded.
  if (ready) {
    Status loaded = AwaitReady(*c->attach, *ready);
    if (!loaded.ok()) return fail(loaded);
  }
  c->image_digest = state->image_id;
  c->ready_at = Clock::now();
  return c;
}

void WarmPool::RememberUnremoved(const std::string& id_or_name) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!reaped_) {
    undeleted_.push_back(id_or_name);
  } else {
    unremoved_at_stop_.push_back(id_or_name);
  }
}

void WarmPool::Destroy(std::unique_ptr<PooledContainer> c) {
  if (!c) return;
  if (!c->id.empty() && !c->container_removed) {
    // A container that ran its job is exiting on its own: let it finish
    // first (container_removal.h).
    if (c->ran_job && c->attach) {
      c->attach->WaitDone(Clock::now() + std::chrono::seconds(5), /*wake_on_cancel=*/false);
    }
    Status removed = RemoveExitingContainer(containers_, c->id);
    if (!removed.ok()) {
      spdlog::warn("pool: remove container {}: {}", c->id, removed.ToString());
      c->uid.Keep();  // Its processes may live on as that uid.
      if (removed.code() == StatusCode::kUnavailable) {
        // The engine is away: remember the container and try again later
        // (a restart's recovery removes it otherwise: it has our token no
        // more). Its stream ended with the connection.
        RememberUnremoved(c->id);
      }
    }
  }
  // Removal closes a started container's stream; the reader thread ends.
  if (c->attach) {
    c->attach->EndAfterRemoval(c->started ? std::chrono::milliseconds(2000)
                                          : std::chrono::milliseconds(0));
  }
  if (c->workspace) (void)c->workspace->Remove();
  if (!c->output_dir.empty()) (void)RemoveTree(c->output_dir);
}

}  // namespace coderunner::isolation
