// OutputRelay: a job's live output, from the fleet node that runs it to the
// nodes that follow its /events (JobNotice kWatch, kOutput). Internal to
// src/fleet; FleetDispatch owns it.
//
// A follower (a node with a channel for a job running elsewhere) publishes
// kWatch once it has shown the job running, and again after a resync or a
// gap. The runner, on kWatch, forwards its channel's output from the start
// as kOutput chunks (one forwarder thread per watched running job; a new
// kWatch restarts it from offset 0 for a node that joined late). The
// follower appends only the bytes past what its channel holds, so replays
// are harmless. Before the runner tells the fleet that a job ended
// (kChanged), its forwarder has sent the last chunk (FlushingNotices): the
// followers see all the output before the terminal status.
#ifndef CODERUNNER_SRC_FLEET_OUTPUT_RELAY_H_
#define CODERUNNER_SRC_FLEET_OUTPUT_RELAY_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "coderunner/jobs/job_channel.h"
#include "coderunner/store/job_notices.h"

namespace coderunner::fleet {

class OutputRelay;

// The JobNotices a fleet node's executor publishes through: a kChanged for
// a job whose channel is terminal waits (up to OutputRelay::kFlushWait)
// until that job's forwarder has sent everything, then goes out as any
// other notice. Start and Stop pass through. Thread-safe.
class FlushingNotices : public store::JobNotices {
 public:
  FlushingNotices(OutputRelay& relay, store::JobNotices& inner) : relay_(relay), inner_(inner) {}
  Status Publish(const store::JobNotice& notice) override;
  Status Start(std::function<void(const store::JobNotice&)> on_notice,
               std::function<void()> on_resync) override;
  void Stop() override;

 private:
  OutputRelay& relay_;
  store::JobNotices& inner_;
};

// Non-owning; every pointee outlives the relay and is thread-safe.
struct OutputRelayDeps {
  jobs::JobHub* hub = nullptr;           // This node's channels.
  store::JobNotices* notices = nullptr;  // The fleet's notices (required).
  // Whether job `id` executes on this node now.
  std::function<bool(const std::string& id)> runs_here;
};

// Thread-safe. Callbacks of the notice thread (OnWatch, OnOutput, Watch,
// Forget) never block for long.
class OutputRelay {
 public:
  // How long a forwarder waits for more output before it sends a chunk
  // smaller than kMaxNoticeOutputBytes (batching: fewer, larger notices).
  static constexpr auto kBatch = std::chrono::milliseconds(50);
  // Longest a terminal kChanged waits for its job's forwarder (Flush).
  static constexpr auto kFlushWait = std::chrono::seconds(2);

  explicit OutputRelay(OutputRelayDeps deps);
  // Stop.
  ~OutputRelay();
  OutputRelay(const OutputRelay&) = delete;
  OutputRelay& operator=(const OutputRelay&) = delete;

  // Follower side. Watch: job `id`, whose channel here shows it running
  // elsewhere, is followed; publishes kWatch. Forget: it no longer is (its
  // channel ended). OnOutput: a kOutput for a followed job not running
  // here goes into its channel (JobChannel::PublishOutputAt); a gap sends
  // kWatch again, once until output applies again. Others are ignored.
  void Watch(const std::string& id);
  void Forget(const std::string& id);
  void OnOutput(const store::JobNotice& notice);

  // Runner side. OnWatch: if job `id` runs here, forwards its output from
  // offset 0 (starting its forwarder, or restarting the one it has).
  // Flush: if `id`'s forwarder exists and its channel is terminal, waits
  // until it has sent everything (at most kFlushWait, or Stop).
  void OnWatch(const std::string& id);
  void Flush(const std::string& id);

  // What the executor publishes through (see FlushingNotices); lives as
  // long as the relay.
  store::JobNotices* executor_notices() { return &flushing_; }

  // Stops and joins every forwarder (each within about 100 ms); later
  // kWatch start none. Idempotent.
  void Stop();

 private:
  struct Forwarder {
    std::shared_ptr<jobs::JobChannel> channel;
    std::atomic<bool> restart{false};
    bool done = false;  // Guarded by mu_.
    std::thread thread;
  };
  // The forwarder thread of job `id`: reads `f`'s channel and publishes
  // kOutput until the channel is terminal and read to its end, or Stop.
  void Forward(const std::string& id, Forwarder* f);
  // Publishes output `bytes` of job `id` at `offset`, in chunks.
  void SendOutput(const std::string& id, bool is_stderr, int64_t offset, const std::string& bytes);
  // Joins and drops finished forwarders. Holds mu_.
  void ReapLocked();

  OutputRelayDeps deps_;
  FlushingNotices flushing_;
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::condition_variable done_cv_;  // Notified when a forwarder is done.
  // Shared: Flush holds the one it waits on, which ReapLocked (on another
  // thread, once it is done) may drop from the map meanwhile.
  std::map<std::string, std::shared_ptr<Forwarder>> forwarders_;
  // Followed jobs; true while a re-watch after a gap is pending.
  std::map<std::string, bool> followed_;
};

}  // namespace coderunner::fleet

#endif  // CODERUNNER_SRC_FLEET_OUTPUT_RELAY_H_
