// pip's own words (Debian's pip 23.0.1) turned into a lock and into errors
// that name the package.
#include "packages/pip_output.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace coderunner::packages {
namespace {

std::string Testdata(const std::string& name) {
  std::ifstream in(std::string(CODERUNNER_TESTDATA) + "/packages/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(PipOutputTest, AReportBecomesALockSortedByName) {
  // pip install --report of crdepends==2.0 from make_python_mirror.py's index.
  auto lock = ParsePipReport(Testdata("pip_report.json"));
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  EXPECT_EQ(*lock,
            (std::vector<LockedPackage>{
                {"crdepends", "2.0",
                 "5a92d954192dd6e2f0052837816e7e882865b9388d32ce5ae26bb0abceec30c8", "", ""},
                {"crtiny", "1.1",
                 "ee93c633408e4976896ce7f3ba8f3a7fd9a65a60b0ae645eb94d4a5c58076988", "", ""}}));
}

TEST(PipOutputTest, AReportThatIsNotOneIsRefused) {
  const std::string kHex64(64, 'a');
  const std::string kBad[] = {
      "",
      "[]",
      R"({"install": {}})",
      R"({"install": [{"metadata": {"name": "x"}}]})",
      R"({"install": [{"metadata": {"name": "x", "version": "1"}}]})",
      R"({"install": [{"metadata": {"name": "x", "version": "1"},
          "download_info": {"archive_info": {"hashes": {"sha256": "ABC"}}}}]})",
      R"({"install": [{"metadata": {"name": "--x", "version": "1"},
          "download_info": {"archive_info": {"hash": "sha256=)" +
          kHex64 + R"("}}}]})",
  };
  for (const std::string& report : kBad) {
    SCOPED_TRACE(report);
    auto lock = ParsePipReport(report);
    ASSERT_FALSE(lock.ok());
    EXPECT_EQ(lock.status().reason(), kReasonInstallFailed);
  }
}

TEST(PipOutputTest, FailuresNameThePackageAndWhy) {
  const struct {
    const char* output;
    const char* reason;
    const char* message_has;
  } kCases[] = {
      {"ERROR: Could not find a version that satisfies the requirement nosuchpkg (from versions: "
       "none)\nERROR: No matching distribution found for nosuchpkg\n",
       kReasonPackageNotFound, "'nosuchpkg': the index has no such package"},
      {"ERROR: Could not find a version that satisfies the requirement crtiny==9.0 (from "
       "versions: 1.0, 1.1)\nERROR: No matching distribution found for crtiny==9.0\n",
       kReasonPackageNotFound, "'crtiny==9.0': no version matches; the index has 1.0, 1.1"},
      {"ERROR: Cannot install crdepends==2.0 and crpinned==1.0 because these package versions "
       "have conflicting dependencies.\n\nThe conflict is caused by:\n    crdepends 2.0 depends "
       "on crtiny>=1.1\n    crpinned 1.0 depends on crtiny==1.0\n\nTo fix this you could try "
       "to:\n1. loosen the range of package versions you've specified\n\nERROR: "
       "ResolutionImpossible: for help visit https://pip.pypa.io/\n",
       kReasonPackageConflict,
       "conflict: crdepends 2.0 depends on crtiny>=1.1; crpinned 1.0 depends on crtiny==1.0"},
      {"ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE. If you have "
       "updated the package versions, please update the hashes.\n    crtiny==1.1 from "
       "http://127.0.0.1/files/crtiny-1.1-py3-none-any.whl:\n        Expected sha256 ee93\n "
       "            Got        3b58\n",
       kReasonPackageChanged, "no longer the file it was"},
      {"ERROR: Could not install packages due to an OSError: [Errno 27] File too large\n",
       kReasonPackagesTooLarge, "packages.max_installed_bytes"},
      {"Collecting x\nERROR: Exception:\nTraceback...\nERROR: something else broke\n",
       kReasonInstallFailed, "exit code 2): ERROR: something else broke"},
      {"", kReasonInstallFailed, "exit code 2)"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.output);
    Status s = PipFailure(2, c.output);
    EXPECT_EQ(s.reason(), c.reason);
    EXPECT_NE(s.message().find(c.message_has), std::string::npos) << s.message();
  }
}

}  // namespace
}  // namespace coderunner::packages
