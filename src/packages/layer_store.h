// LayerStore: packages.dir on the host. layers/<name>/ holds each installed
// set (read-only to every job: the directory is bound read-only into every
// container); staging/ holds installs under way, which no container sees.
// Private to src/packages.
#ifndef CODERUNNER_SRC_PACKAGES_LAYER_STORE_H_
#define CODERUNNER_SRC_PACKAGES_LAYER_STORE_H_

#include <string>
#include <vector>

#include "coderunner/common/status.h"
#include "coderunner/packages/package_installer.h"

namespace coderunner::packages {

class LayerStore {
 public:
  // Creates dir/layers (root, 0711: a job may enter a layer it is linked
  // to, but not list the others), dir/staging (0711: each install enters
  // its own directory, 0700 and its uid's) and the layer key
  // (dir/layer.key, 0600, 32 random bytes, kept across restarts).
  // Internal "packages_dir_unusable" if it cannot, or if a directory above
  // `dir` does not let other users search it (each install's uid must
  // reach its staging directory).
  static StatusOr<LayerStore> Open(const std::string& dir);

  // The layer name of `lock`: hex HMAC-SHA256 under the layer key, so the
  // name of a set is known only to those who were given it. Pure.
  std::string NameOf(const std::string& ecosystem, const std::vector<LockedPackage>& lock) const;
  bool Exists(const std::string& name) const;
  // A new empty staging directory owned by `uid` (0700). Its path.
  StatusOr<std::string> NewStaging(int64_t uid) const;
  // Makes `tree` (a directory inside a staging directory) the layer `name`
  // with `subdir` inside it ("python"): every entry root's, directories
  // 0755, files 0644 (0755 with any execute bit), symlinks and other kinds
  // removed; then renamed into layers/ in one step. A layer that exists
  // already is kept, and `tree` dropped.
  Status Commit(const std::string& tree, const std::string& name, const std::string& subdir) const;

  const std::string& layers_dir() const { return layers_; }

 private:
  LayerStore(std::string layers, std::string staging, std::string key)
      : layers_(std::move(layers)), staging_(std::move(staging)), key_(std::move(key)) {}
  std::string layers_;
  std::string staging_;
  std::string key_;
};

}  // namespace coderunner::packages

#endif  // CODERUNNER_SRC_PACKAGES_LAYER_STORE_H_
