// UidPool: a host uid (and gid of the same number) for each live job
// container, so that no two containers share one.
//
// Without user namespaces a container's uid IS a host uid, and the kernel
// keeps many counters and limits per uid, host-wide: RLIMIT_NPROC's process
// count, queued signals (RLIMIT_SIGPENDING), epoll watches
// (fs.epoll.max_user_watches), inotify instances and watches
// (fs.inotify.max_user_*), pipe buffer pages (fs.pipe-user-pages-soft),
// POSIX message queue bytes (RLIMIT_MSGQUEUE), locked memory. Were every job
// to run as 65534, one job or sandbox could use up such a counter and break
// every other tenant's jobs (128 inotify instances are enough). With a uid
// per container each counter only ever holds one container's processes.
//
// Uids are handed out round-robin over [first, first + count), skipping
// those leased or reserved, so a released uid is reused as late as possible.
// A persistent volume has a uid of its own for its whole life (every file
// in it belongs to it), reserved here so that no other container gets it.
// Thread-safe.
#ifndef CODERUNNER_ISOLATION_UID_POOL_H_
#define CODERUNNER_ISOLATION_UID_POOL_H_

#include <cstdint>
#include <mutex>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::isolation {

class UidPool;

// The default range (config sandbox.uid_first / uid_count): far above any
// login account, subordinate-id range (/etc/subuid) and SSSD's default id
// mapping (up to 2000200000), below 2^31.
inline constexpr int64_t kDefaultFirstJobUid = 2100000000;
inline constexpr int64_t kDefaultJobUidCount = 65536;

// One leased uid; released when destroyed unless Keep() was called (the
// container holding it could not be removed, so its processes may still run
// as it: the uid is never handed out again in this process). Movable.
class UidLease {
 public:
  UidLease() = default;
  UidLease(UidLease&& other) noexcept;
  UidLease& operator=(UidLease&& other) noexcept;
  UidLease(const UidLease&) = delete;
  UidLease& operator=(const UidLease&) = delete;
  ~UidLease();

  int64_t uid() const { return uid_; }  // -1 when empty.
  bool empty() const { return pool_ == nullptr; }
  void Keep();     // Never give the uid back.
  void Release();  // Give it back now. Idempotent.

 private:
  friend class UidPool;
  UidLease(UidPool* pool, int64_t uid) : pool_(pool), uid_(uid) {}
  UidPool* pool_ = nullptr;
  int64_t uid_ = -1;
};

class UidPool {
 public:
  // Uids [first, first + count). InvalidArgument-free by construction:
  // Validate() the configuration first (config does: config::ValidateUidRange).
  UidPool(int64_t first, int64_t count);

  // The range is usable: first >= 1000 (no system account), count >= 1,
  // first + count - 1 <= 2^31 - 2 (Docker and Podman take a uid as a
  // signed 32-bit number; 2^31-1 is reserved as "no uid" by some tools).
  static Status Validate(int64_t first, int64_t count);

  // A uid no live lease or reservation holds. ResourceExhausted
  // "uids_exhausted" when every uid of the range is taken.
  StatusOr<UidLease> Lease();

  // A lease on `uid`, which a container adopted from an earlier process
  // already runs as: marked taken until the lease ends. A uid outside the
  // range gives an empty lease (nothing to give back).
  UidLease Claim(int64_t uid);

  // Marks `uid` as taken for good (a volume's own uid, or a container
  // adopted from an earlier process). A uid outside the range is ignored
  // (it cannot collide with a lease). Idempotent.
  void Reserve(int64_t uid);
  // Undoes Reserve (a volume was deleted). Idempotent.
  void Unreserve(int64_t uid);

  bool Contains(int64_t uid) const { return uid >= first_ && uid < first_ + count_; }
  int64_t first() const { return first_; }
  int64_t count() const { return count_; }
  // Uids leased or reserved now.
  int64_t in_use() const;

 private:
  friend class UidLease;
  void Give(int64_t uid);

  const int64_t first_;
  const int64_t count_;
  mutable std::mutex mu_;
  std::vector<bool> taken_;  // Index uid - first_.
  int64_t next_ = 0;         // Where the round-robin search starts.
  int64_t in_use_ = 0;
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_UID_POOL_H_
