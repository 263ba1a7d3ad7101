#include "coderunner/jobs/webhook_signature.h"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "coderunner/common/hmac_sha256.h"
#include "coderunner/common/sha256.h"

namespace coderunner::jobs {
namespace {

constexpr const char* kKeyLabel = "coderunner-webhook-key:";
constexpr const char* kSecretFile = "webhook_secret";
constexpr size_t kSecretBytes = 32;
constexpr size_t kMaxSecretFileBytes = 4096;

std::string Trim(std::string s) {
  while (!s.empty() && std::strchr(" \t\r\n", s.back()) != nullptr) s.pop_back();
  size_t start = s.find_first_not_of(" \t\r\n");
  return start == std::string::npos ? "" : s.substr(start);
}

StatusOr<std::string> RandomHex(size_t n) {
  std::string bytes(n, '\0');
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(bytes.data() + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return InternalError(std::string("getrandom: ") + strerror(errno));
    got += static_cast<size_t>(r);
  }
  return LowerHex(bytes);
}

// Reads `path`; NotFound if it does not exist.
StatusOr<std::string> ReadSecretFile(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) {
    if (errno == ENOENT) return NotFoundError(path + " does not exist");
    return InternalError("cannot read " + path + ": " + strerror(errno));
  }
  std::string text(kMaxSecretFileBytes, '\0');
  ssize_t n = read(fd, text.data(), text.size());
  close(fd);
  if (n < 0) return InternalError("cannot read " + path + ": " + strerror(errno));
  text = Trim(text.substr(0, static_cast<size_t>(n)));
  if (text.empty()) return InternalError(path + " is empty; delete it to get a new secret");
  return text;
}

// Creates `path` holding a new random secret; AlreadyExists if another
// process created it first.
StatusOr<std::string> CreateSecretFile(const std::string& path) {
  CR_ASSIGN_OR_RETURN(std::string secret, RandomHex(kSecretBytes));
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return AlreadyExistsError(path + " exists");
    return InternalError("cannot create " + path + ": " + strerror(errno));
  }
  std::string line = secret + "\n";
  bool written = write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
  bool synced = fsync(fd) == 0;
  close(fd);
  if (!written || !synced) {
    unlink(path.c_str());
    return InternalError("cannot write " + path);
  }
  return secret;
}

}  // namespace

std::string WebhookTenantKey(std::string_view secret, std::string_view tenant) {
  return HmacSha256Hex(secret, std::string(kKeyLabel) + std::string(tenant));
}

std::string WebhookSignature(std::string_view tenant_key, int64_t unix_s, std::string_view body) {
  std::string t = std::to_string(unix_s);
  std::string signed_text = t + ".";
  signed_text.append(body);
  return "t=" + t + ",v1=" + HmacSha256Hex(tenant_key, signed_text);
}

StatusOr<std::string> LoadWebhookSecret(const config::WebhooksConfig& webhooks,
                                        const std::string& data_dir) {
  if (!webhooks.secret_env.empty()) {
    const char* value = std::getenv(webhooks.secret_env.c_str());
    if (value == nullptr || *value == '\0') {
      return FailedPreconditionError("webhooks.secret_env names " + webhooks.secret_env +
                                         ", which is unset or empty in the environment",
                                     "webhook_secret_missing");
    }
    return std::string(value);
  }
  const std::string path = data_dir + "/" + kSecretFile;
  auto existing = ReadSecretFile(path);
  if (existing.ok() || existing.status().code() != StatusCode::kNotFound) return existing;
  auto created = CreateSecretFile(path);
  if (created.ok() || created.status().code() != StatusCode::kAlreadyExists) return created;
  return ReadSecretFile(path);
}

}  // namespace coderunner::jobs
