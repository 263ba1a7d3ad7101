// RFC 3986's unreserved characters: what a percent-encoder of the edge
// (a relayed path's segments, a download's file name) leaves as it is.
#ifndef CODERUNNER_API_URI_UNRESERVED_H_
#define CODERUNNER_API_URI_UNRESERVED_H_

namespace coderunner::api {

// A-Z a-z 0-9 - . _ ~ (also plain in RFC 5987's attr-char and in a
// quoted-string).
inline bool IsUriUnreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_' || c == '~';
}

}  // namespace coderunner::api

#endif  // CODERUNNER_API_URI_UNRESERVED_H_
