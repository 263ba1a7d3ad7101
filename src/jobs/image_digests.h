// ImageDigests: image name -> digest, refreshed off the request path.
#ifndef CODERUNNER_SRC_JOBS_IMAGE_DIGESTS_H_
#define CODERUNNER_SRC_JOBS_IMAGE_DIGESTS_H_

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "coderunner/engine/images.h"

namespace coderunner::jobs {

// Submissions need the digest for the cache key. Asking the engine on the
// request path would add a round trip to every submit, and make every
// submit wait out an engine that stalls. A digest is kept `ttl` (a rebuilt
// image is noticed within it); after that the last one known is still
// given at once while the cache's own thread asks the engine again. Only
// an image never looked up waits, at most `first_wait`. Thread-safe.
class ImageDigests {
 public:
  ImageDigests(engine::ImageClient* images, std::chrono::milliseconds ttl,
               std::chrono::milliseconds first_wait);
  // Waits for a lookup under way (as long as the engine call takes).
  ~ImageDigests();
  ImageDigests(const ImageDigests&) = delete;
  ImageDigests& operator=(const ImageDigests&) = delete;

  // The digest ("sha256:..."), or "" while none is known (the image cannot
  // be inspected, or did not answer within first_wait). A pinned digest
  // ("sha256:...") is its own answer.
  std::string Get(const std::string& image);

  // Engine lookups begun so far.
  int lookups() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    std::string digest;          // "" until a lookup found one.
    Clock::time_point found_at;  // Of `digest`.
    Clock::time_point tried_at;  // When the last lookup ended.
    bool tried = false;
  };
  void Loop();

  engine::ImageClient* const images_;
  const std::chrono::milliseconds ttl_;
  const std::chrono::milliseconds first_wait_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, Entry> cache_;
  std::set<std::string> wanted_;  // To look up; includes the one under way.
  int lookups_ = 0;
  bool stopping_ = false;
  std::thread thread_;  // Started by the first lookup.
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_SRC_JOBS_IMAGE_DIGESTS_H_
