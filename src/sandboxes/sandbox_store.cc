#include "coderunner/sandboxes/sandbox_store.h"

#include <errno.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <string.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace coderunner::sandboxes {

StatusOr<std::unique_ptr<SandboxStore>> SandboxStore::Open(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return InternalError("create sandbox store " + dir + ": " + ec.message());
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
  return std::unique_ptr<SandboxStore>(new SandboxStore(dir));
}

Status SandboxStore::Put(const SandboxRecord& record) {
  std::string text = RecordToJson(record).dump();
  std::string path = dir_ + "/" + record.id + ".json";
  std::string tmp = path + ".tmp";
  std::lock_guard<std::mutex> lock(mu_);
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return InternalError("write " + tmp + ": " + strerror(errno), "store_io");
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return InternalError("write " + tmp + ": " + strerror(err), "store_io");
    }
    done += static_cast<size_t>(n);
  }
  // The rename must not reach the disk before the data does.
  if (fsync(fd) != 0 || close(fd) != 0) {
    return InternalError("sync " + tmp + ": " + strerror(errno), "store_io");
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    return InternalError("rename " + tmp + ": " + strerror(errno), "store_io");
  }
  return OkStatus();
}

Status SandboxStore::Delete(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string path = dir_ + "/" + id + ".json";
  if (unlink(path.c_str()) != 0 && errno != ENOENT) {
    return InternalError("remove " + path + ": " + strerror(errno), "store_io");
  }
  return OkStatus();
}

std::vector<SandboxRecord> SandboxStore::LoadAll() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<SandboxRecord> out;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_, ec)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".json" || !entry.is_regular_file(ec)) continue;
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    auto j = nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
    auto rec = j.is_discarded() ? StatusOr<SandboxRecord>(InvalidArgumentError("not JSON"))
                                : RecordFromJson(j);
    if (!rec.ok()) {
      spdlog::warn("sandbox store: skipping {}: {}", path, rec.status().message());
      continue;
    }
    out.push_back(std::move(*rec));
  }
  return out;
}

}  // namespace coderunner::sandboxes
