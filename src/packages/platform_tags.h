// The platform tags pip is told (pip --platform). pip 23 takes a PEP 600
// tag such as manylinux_2_36_x86_64 for exactly that glibc, not for the
// older ones it also runs, so most compiled wheels (manylinux2014, that is
// manylinux_2_17) would never match. Private to src/packages.
#ifndef CODERUNNER_SRC_PACKAGES_PLATFORM_TAGS_H_
#define CODERUNNER_SRC_PACKAGES_PLATFORM_TAGS_H_

#include <string>
#include <vector>

namespace coderunner::packages {

// `platforms` with every manylinux_2_<N>_<arch> followed by each older
// glibc's tag down to manylinux_2_5_<arch>, and the legacy names of the
// same glibcs (manylinux2014 = 2_17, manylinux2010 = 2_12, manylinux1 =
// 2_5); other tags as given. Newest first, no tag twice. Pure.
std::vector<std::string> ExpandPlatforms(const std::vector<std::string>& platforms);

}  // namespace coderunner::packages

#endif  // CODERUNNER_SRC_PACKAGES_PLATFORM_TAGS_H_
