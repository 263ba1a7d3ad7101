// The checks of config values that a numeric bound cannot say: the text
// checks named in the tables' `check` column, and the checks across keys
// and sections. Private to src/config.
#ifndef CODERUNNER_SRC_CONFIG_CONFIG_CHECKS_H_
#define CODERUNNER_SRC_CONFIG_CONFIG_CHECKS_H_

#include <string>

#include "coderunner/common/status.h"
#include "coderunner/config/config.h"

namespace coderunner::config {

// The error of a tier whose sandbox caps or TTLs are out of bounds or order.
inline constexpr char kTierSandboxCaps[] =
    "sandbox caps must be >= 0, and 1 <= sandbox_ttl_s <= max_sandbox_ttl_s <= 1209600 (14 days)";

// Text checks (TextCheck): OK, or InvalidArgument naming `path`.
Status CheckRuntime(const std::string& v, const std::string& path);         // "", runc, runsc.
Status CheckVerifyMode(const std::string& v, const std::string& path);      // off, checks, full.
Status CheckTierVerifyMode(const std::string& v, const std::string& path);  // "" or the above.
Status CheckAbsolute(const std::string& v, const std::string& path);        // Starts with '/'.
Status CheckHostPort(const std::string& v, const std::string& path);        // Holds a ':'.
Status CheckInstance(const std::string& v, const std::string& path);   // 1..64 of [A-Za-z0-9_-].
Status CheckLogLevel(const std::string& v, const std::string& path);   // trace..error.
Status CheckLogFormat(const std::string& v, const std::string& path);  // text or json.
Status CheckAuthMode(const std::string& v, const std::string& path);   // api_keys or none.
Status CheckHttpUrl(const std::string& v, const std::string& path);    // "" or http(s)://.
// "" or http(s)://host[:port][/path]: a host, no user info, no spaces or
// control characters.
Status CheckAdvertiseUrl(const std::string& v, const std::string& path);
Status CheckEnvName(const std::string& v, const std::string& path);    // "" or a variable NAME.
Status CheckKeySha256(const std::string& v, const std::string& path);  // 64 lower-case hex.
Status CheckRequired(const std::string& v, const std::string& path);   // Not empty.
Status CheckPlainFileName(const std::string& v, const std::string& path);
Status CheckStoreKind(const std::string& v, const std::string& path);  // sqlite or postgres.
// No control characters and no password in any libpq spelling (password=,
// user:password@, ?password=); the error never quotes the value.
Status CheckStoreUrl(const std::string& v, const std::string& path);

// store.* as a whole (`path` is "store"): postgres needs a url, sqlite
// takes none.
Status CheckStore(const StoreConfig& s, const std::string& path);

// A socket given as unix://PATH becomes PATH (as DOCKER_HOST takes it); any
// other scheme fails naming `path`.
Status NormalizeSocket(const std::string& path, std::string* socket);

// A language read from the file: image, file and command given and sane.
Status CheckLanguage(const LanguageSpec& lang, const std::string& path);

// A tier: sandbox_ttl_s <= max_sandbox_ttl_s (each key's bounds are in the table).
Status CheckTier(const TierConfig& t, const std::string& path);

// Everything that spans keys or sections (limit pairs, artifact caps, uid
// range, names of languages and tiers), after the whole file is read.
Status CheckAcross(const Config& c);

}  // namespace coderunner::config

#endif  // CODERUNNER_SRC_CONFIG_CONFIG_CHECKS_H_
