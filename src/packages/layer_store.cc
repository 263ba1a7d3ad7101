#include "layer_store.h"

#include <fcntl.h>
#include <fts.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "coderunner/common/hmac_sha256.h"
#include "coderunner/common/ids.h"
#include "coderunner/common/sha256.h"
#include "coderunner/isolation/workspace.h"

namespace coderunner::packages {
namespace {

constexpr size_t kKeyBytes = 32;
constexpr mode_t kLayersMode = 0711;  // Enter a layer you were linked to; list none.

Status Unusable(const std::string& what) {
  return InternalError("packages.dir: " + what + ": " + strerror(errno), "packages_dir_unusable");
}

Status MakeDir(const std::string& path, mode_t mode) {
  if (mkdir(path.c_str(), mode) != 0 && errno != EEXIST) return Unusable("mkdir " + path);
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return Unusable(path);
  if (chown(path.c_str(), 0, 0) != 0 || chmod(path.c_str(), mode) != 0) return Unusable(path);
  return OkStatus();
}

StatusOr<std::string> ReadOrMakeKey(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  std::string key(kKeyBytes, '\0');
  if (fd >= 0) {
    ssize_t n = read(fd, key.data(), key.size());
    close(fd);
    if (n == static_cast<ssize_t>(kKeyBytes)) return key;
  }
  int rnd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  bool got = rnd >= 0 && read(rnd, key.data(), key.size()) == static_cast<ssize_t>(kKeyBytes);
  if (rnd >= 0) close(rnd);
  if (!got) return Unusable("/dev/urandom");
  fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0 || write(fd, key.data(), key.size()) != static_cast<ssize_t>(kKeyBytes)) {
    if (fd >= 0) close(fd);
    return Unusable("write " + path);
  }
  close(fd);
  return key;
}

// Root's, read-only to all, nothing but directories and regular files.
Status Normalize(const std::string& tree) {
  char* paths[] = {const_cast<char*>(tree.c_str()), nullptr};
  FTS* fts = fts_open(paths, FTS_PHYSICAL | FTS_NOCHDIR | FTS_XDEV, nullptr);
  if (fts == nullptr) return Unusable("open " + tree);
  Status out = OkStatus();
  while (FTSENT* e = fts_read(fts)) {
    if (e->fts_info == FTS_DP) continue;
    const char* p = e->fts_path;
    if (e->fts_info == FTS_D) {
      if (lchown(p, 0, 0) != 0 || chmod(p, 0755) != 0) out = Unusable(p);
    } else if (e->fts_info == FTS_F) {
      mode_t mode = (e->fts_statp->st_mode & 0111) != 0 ? 0755 : 0644;
      if (lchown(p, 0, 0) != 0 || chmod(p, mode) != 0) out = Unusable(p);
    } else if (unlink(p) != 0) {
      out = Unusable(p);
    }
    if (!out.ok()) break;
  }
  fts_close(fts);
  return out;
}

// Each install runs as a uid of its own and must reach its staging
// directory: every directory above `dir` must let others search it.
Status CheckSearchableAbove(const std::string& dir) {
  for (size_t slash = dir.find('/', 1); slash != std::string::npos;
       slash = dir.find('/', slash + 1)) {
    const std::string above = dir.substr(0, slash);
    struct stat st;
    if (stat(above.c_str(), &st) != 0) return Unusable("stat " + above);
    if ((st.st_mode & S_IXOTH) == 0) {
      return InternalError("packages.dir: " + above +
                               " does not let other users search it (chmod o+x), and each "
                               "install runs as a uid of its own below it",
                           "packages_dir_unusable");
    }
  }
  return OkStatus();
}

}  // namespace

StatusOr<LayerStore> LayerStore::Open(const std::string& dir) {
  CR_RETURN_IF_ERROR(CheckSearchableAbove(dir));
  CR_RETURN_IF_ERROR(MakeDir(dir, 0711));
  CR_RETURN_IF_ERROR(MakeDir(dir + "/layers", kLayersMode));
  // Installs a crash cut short: nothing in them is used.
  (void)isolation::RemoveTree(dir + "/staging");
  // Entered by each install's own uid, listed by none.
  CR_RETURN_IF_ERROR(MakeDir(dir + "/staging", 0711));
  CR_ASSIGN_OR_RETURN(std::string key, ReadOrMakeKey(dir + "/layer.key"));
  return LayerStore(dir + "/layers", dir + "/staging", std::move(key));
}

std::string LayerStore::NameOf(const std::string& ecosystem,
                               const std::vector<LockedPackage>& lock) const {
  std::ostringstream canonical;
  canonical << ecosystem << '\n';
  for (const auto& p : lock) {
    canonical << p.name << ' ' << p.version << ' ' << p.sha256 << p.integrity << ' ' << p.path
              << '\n';
  }
  return HmacSha256Hex(key_, canonical.str());
}

bool LayerStore::Exists(const std::string& name) const {
  struct stat st;
  return lstat((layers_ + "/" + name).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

StatusOr<std::string> LayerStore::NewStaging(int64_t uid) const {
  std::string path = staging_ + "/" + NewId("install");
  if (mkdir(path.c_str(), 0700) != 0) return Unusable("mkdir " + path);
  if (chown(path.c_str(), static_cast<uid_t>(uid), static_cast<gid_t>(uid)) != 0) {
    return Unusable("chown " + path);
  }
  return path;
}

Status LayerStore::Commit(const std::string& tree, const std::string& name,
                          const std::string& subdir) const {
  CR_RETURN_IF_ERROR(Normalize(tree));
  // A root-owned directory beside the tree, holding it as `subdir`.
  std::string holder = tree + ".layer";
  if (mkdir(holder.c_str(), 0755) != 0 || chmod(holder.c_str(), 0755) != 0) {
    return Unusable("mkdir " + holder);
  }
  if (rename(tree.c_str(), (holder + "/" + subdir).c_str()) != 0) return Unusable("rename " + tree);
  if (rename(holder.c_str(), (layers_ + "/" + name).c_str()) != 0) {
    if (errno == EEXIST || errno == ENOTEMPTY) return OkStatus();  // Another install won.
    return Unusable("rename into " + layers_);
  }
  return OkStatus();
}

}  // namespace coderunner::packages
