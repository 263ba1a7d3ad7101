// Redaction of secret-looking strings before output is stored or logged.
#ifndef CODERUNNER_JOBS_REDACTOR_H_
#define CODERUNNER_JOBS_REDACTOR_H_

#include <string>
#include <string_view>

namespace coderunner::jobs {

inline constexpr std::string_view kRedacted = "[REDACTED]";

// Returns `text` with each secret-looking span replaced by "[REDACTED]":
//   - bearer tokens ("Bearer <token>", case-insensitive; the word is kept),
//   - OpenAI/Anthropic-style keys ("sk-..." with 16+ key characters),
//   - AWS access key ids (AKIA/ASIA + 16 upper-case alphanumerics) and AWS
//     secret keys (40 base64 characters after "aws_secret_access_key" or
//     "secret_access_key" and '=' or ':'),
//   - PEM private-key blocks ("-----BEGIN ... PRIVATE KEY-----" through the
//     matching END line, or to the end of the text if it is cut),
//   - the values of password=, passwd=, pwd=, token=, secret=, api_key=,
//     apikey= pairs (also with ':' and quotes, case-insensitive).
// Runs in time linear in the input (no backtracking regex), so 1 MiB of
// hostile output is cheap. Pure; thread-safe.
std::string RedactSecrets(std::string_view text);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_REDACTOR_H_
