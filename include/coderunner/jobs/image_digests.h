// ImageDigests: a short-lived cache of image name -> digest.
#ifndef CODERUNNER_JOBS_IMAGE_DIGESTS_H_
#define CODERUNNER_JOBS_IMAGE_DIGESTS_H_

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "coderunner/engine/images.h"

namespace coderunner::jobs {

// Submissions need the digest for the cache key; asking the engine once per
// job would add a round trip to every submit. Entries live `ttl`, so a
// rebuilt image is noticed within it. Thread-safe.
class ImageDigests {
 public:
  ImageDigests(engine::ImageClient* images, std::chrono::milliseconds ttl)
      : images_(images), ttl_(ttl) {}

  // The digest ("sha256:...") or "" when the image cannot be inspected.
  std::string Get(const std::string& image);

 private:
  engine::ImageClient* images_;
  std::chrono::milliseconds ttl_;
  std::mutex mu_;
  std::map<std::string, std::pair<std::string, std::chrono::steady_clock::time_point>> cache_;
};

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_IMAGE_DIGESTS_H_
