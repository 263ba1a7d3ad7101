// ProbeMirror: whether a package index answers at all, asked before pip
// is, so that a mirror that is down is told apart from a package it lacks
// (pip says "from versions: none" for both). Private to src/packages.
#ifndef CODERUNNER_SRC_PACKAGES_MIRROR_PROBE_H_
#define CODERUNNER_SRC_PACKAGES_MIRROR_PROBE_H_

#include <string>

#include "coderunner/common/status.h"

namespace coderunner::packages {

// GET `index_url` within a few seconds: OK on a 2xx answer, else
// Unavailable "package_mirror_unavailable" naming the index without any
// credentials in its URL. Thread-safe.
Status ProbeMirror(const std::string& index_url);

// `url` without a user:password@ part. Pure.
std::string WithoutCredentials(const std::string& url);

}  // namespace coderunner::packages

#endif  // CODERUNNER_SRC_PACKAGES_MIRROR_PROBE_H_
