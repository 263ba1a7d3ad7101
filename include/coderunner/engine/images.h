// ImageClient: the /images resource of the Engine API.
#ifndef CODERUNNER_ENGINE_IMAGES_H_
#define CODERUNNER_ENGINE_IMAGES_H_

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/engine/transport.h"

namespace coderunner::engine {

struct ImageInfo {
  std::string id;  // "sha256:<hex>", the content digest of the image config.
  std::vector<std::string> repo_tags;
  std::vector<std::string> repo_digests;  // Empty for locally built images.
  // Config.Labels of the image (name -> value); empty when it has none.
  // Labels whose value is not a string are left out.
  std::map<std::string, std::string> labels;
};

// Thread-safe if the transport is. Does not own the transport.
class ImageClient {
 public:
  ImageClient(Transport& transport, std::chrono::milliseconds timeout)
      : transport_(transport), timeout_(timeout) {}

  // GET /images/{name}/json. A missing image is NotFound.
  StatusOr<ImageInfo> Inspect(const std::string& name);

 private:
  Transport& transport_;
  std::chrono::milliseconds timeout_;
};

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_IMAGES_H_
