// MakeTempDir: a new directory of a test's own, under gtest's TempDir().
#ifndef CODERUNNER_TESTS_UNIT_TEMP_DIR_H_
#define CODERUNNER_TESTS_UNIT_TEMP_DIR_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace coderunner::testutil {

// ::testing::TempDir()/coderunner-<name>-XXXXXX, made with mkdtemp (0700);
// throws if it cannot be made. The test removes it.
inline std::string MakeTempDir(const std::string& name) {
  std::string tmpl = ::testing::TempDir() + "/coderunner-" + name + "-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  char* dir = mkdtemp(buf.data());
  if (dir == nullptr) throw std::runtime_error("mkdtemp failed");
  return dir;
}

}  // namespace coderunner::testutil

#endif  // CODERUNNER_TESTS_UNIT_TEMP_DIR_H_
