// Redaction of a finished job's stored request: what is kept at rest once
// a job no longer needs its request verbatim.
#ifndef CODERUNNER_JOBS_REQUEST_REDACTION_H_
#define CODERUNNER_JOBS_REQUEST_REDACTION_H_

#include <string>

namespace coderunner::jobs {

// Rewrites `request_json` (an envelope of EncodeStoredRequest) and
// `callback_url` in place, as store::RequestRedactor:
//   - every string anywhere in the request (code, stdin, args, files'
//     content, inputs, an intent's text and context) goes through
//     RedactSecrets; base64 file content is decoded first and re-encoded;
//   - the callback URL keeps scheme, host and path: its user info and query
//     (where tokens travel) become "[REDACTED]".
// When anything changed, the envelope gets "redacted": true (a replay of
// it is refused: it would not run what the original ran). An envelope that
// is not valid JSON is replaced by {"redacted": true} rather than kept.
// Pure; thread-safe.
void RedactStoredRequest(std::string& request_json, std::string& callback_url);

// Whether a stored envelope was redacted (its request no longer the one
// that ran).
bool StoredRequestWasRedacted(const std::string& request_json);

}  // namespace coderunner::jobs

#endif  // CODERUNNER_JOBS_REQUEST_REDACTION_H_
