// npm's own words (npm 11, against tests/testdata/packages/npm_mirror.py's
// verdaccio) turned into a lock, into a replay's lockfile, and into errors
// that name the package.
#include "packages/npm_output.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace coderunner::packages {
namespace {

using nlohmann::json;

std::string NpmTestdata(const std::string& name) {
  std::ifstream in(std::string(CODERUNNER_TESTDATA) + "/packages/npm/" + name);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const std::string kIntegrity = "sha512-" + std::string(86, 'A') + "==";

TEST(NpmOutputTest, TheHiddenLockfileBecomesALockSortedByPath) {
  // node_modules/.package-lock.json after `npm install crdep@1 @crscope/crscoped@1`.
  auto lock = ParseNpmHiddenLock(NpmTestdata("hidden_lock.json"));
  ASSERT_TRUE(lock.ok()) << lock.status().ToString();
  ASSERT_EQ(lock->size(), 3u);
  EXPECT_EQ((*lock)[0].name, "@crscope/crscoped");
  EXPECT_EQ((*lock)[0].path, "node_modules/@crscope/crscoped");
  EXPECT_EQ((*lock)[1].name, "crdep");
  EXPECT_EQ((*lock)[2].name, "crleft");
  EXPECT_EQ((*lock)[2].version, "1.1.0");
  EXPECT_EQ((*lock)[2].integrity,
            "sha512-ncv6/ltNm6+RFwg84SVFl8bI2fS6Fqcra5d7yaQyLxvTcJTnzIEh/IsS23jRQJaGI9s3R57U0Gqg5q0"
            "qhOqW7g==");
  // And it reads back from a result as it was recorded.
  auto back = ParseLock(Ecosystem::kNpm, LockToJson(*lock));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, *lock);
}

TEST(NpmOutputTest, APackageFromOutsideTheRegistryOrUnderAnotherNameIsRefused) {
  const struct {
    const char* why;
    json entry;
  } kCases[] = {
      {"git", {{"version", "1.0.0"}, {"resolved", "git+ssh://git@evil/x.git#abc"}}},
      {"link", {{"version", "1.0.0"}, {"link", true}, {"integrity", kIntegrity}}},
      {"alias", {{"name", "other"}, {"version", "1.0.0"}, {"integrity", kIntegrity}}},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.why);
    json file = {{"lockfileVersion", 3}, {"packages", {{"node_modules/crleft", c.entry}}}};
    auto lock = ParseNpmHiddenLock(file.dump());
    ASSERT_FALSE(lock.ok());
    EXPECT_EQ(lock.status().reason(), kReasonPackageRefused);
    EXPECT_NE(lock.status().message().find("crleft"), std::string::npos);
  }
  EXPECT_EQ(ParseNpmHiddenLock("{").status().reason(), kReasonInstallFailed);
  EXPECT_EQ(ParseNpmHiddenLock("[]").status().reason(), kReasonInstallFailed);
}

TEST(NpmOutputTest, ALockEntryThatIsNotANameAVersionAnIntegrityAndItsPathIsRefused) {
  const json kGood = {{"name", "crleft"},
                      {"version", "1.0.0"},
                      {"integrity", kIntegrity},
                      {"path", "node_modules/crleft"}};
  ASSERT_TRUE(ParseLock(Ecosystem::kNpm, json::array({kGood})).ok());
  const struct {
    const char* key;
    json value;
  } kBad[] = {
      {"name", "--registry=http://evil/"},
      {"name", "CrLeft"},
      {"version", ""},
      {"version", "1.0.0 --foreground-scripts"},
      {"integrity", "sha1-abc"},
      {"integrity", "sha512-" + std::string(86, '!') + "=="},
      {"path", "node_modules/other"},
      {"path", "../node_modules/crleft"},
      {"path", "node_modules/../../crleft"},
      {"path", "crleft"},
  };
  for (const auto& b : kBad) {
    json entry = kGood;
    entry[b.key] = b.value;
    SCOPED_TRACE(entry.dump());
    auto lock = ParseLock(Ecosystem::kNpm, json::array({entry}));
    ASSERT_FALSE(lock.ok());
    EXPECT_EQ(lock.status().reason(), kReasonInvalidPackage);
  }
}

TEST(NpmOutputTest, AReplaysFilesDeclareEveryPackageAtItsPath) {
  const std::vector<LockedPackage> pinned = {
      {"crdep", "1.0.0", "", kIntegrity, "node_modules/crdep"},
      {"crleft", "2.0.0", "", kIntegrity, "node_modules/crdep/node_modules/crleft"},
      {"crleft", "1.0.0", "", kIntegrity, "node_modules/crleft"}};
  NpmReplayFiles files = MakeNpmReplayFiles(pinned);
  json manifest = json::parse(files.package_json);
  json lockfile = json::parse(files.package_lock_json);
  EXPECT_EQ(manifest["dependencies"], (json{{"crdep", "1.0.0"}, {"crleft", "1.0.0"}}));
  EXPECT_EQ(lockfile["lockfileVersion"], 3);
  EXPECT_EQ(lockfile["packages"][""]["dependencies"], manifest["dependencies"]);
  EXPECT_EQ(lockfile["packages"]["node_modules/crdep"]["dependencies"],
            (json{{"crleft", "2.0.0"}}));
  EXPECT_EQ(lockfile["packages"]["node_modules/crdep/node_modules/crleft"]["integrity"],
            kIntegrity);
}

TEST(NpmOutputTest, NpmsFailuresNameThePackage) {
  const struct {
    const char* file;
    const char* reason;
    const char* says;
  } kCases[] = {
      {"e404.txt", kReasonPackageNotFound, "package 'crnothere@1': the registry has no such"},
      {"etarget.txt", kReasonPackageNotFound, "package 'crleft@9': no version"},
      {"eresolve.txt", kReasonPackageConflict,
       "Found: crleft@1.1.0; peer crleft@\"^2.0.0\" from crpeer@1.0.0"},
      {"eintegrity.txt", kReasonPackageChanged, "no longer the file"},
      {"econnrefused.txt", kReasonMirrorUnavailable, "ECONNREFUSED"},
  };
  for (const auto& c : kCases) {
    SCOPED_TRACE(c.file);
    Status s = NpmFailure(1, NpmTestdata(c.file));
    EXPECT_EQ(s.reason(), c.reason) << s.ToString();
    EXPECT_NE(s.message().find(c.says), std::string::npos) << s.message();
    EXPECT_EQ(s.message().find("/tmp/"), std::string::npos) << "a host path: " << s.message();
  }
  Status other = NpmFailure(1, "npm error code EWHAT\nnpm error something odd\n");
  EXPECT_EQ(other.reason(), kReasonInstallFailed);
  EXPECT_NE(other.message().find("EWHAT"), std::string::npos);
}

}  // namespace
}  // namespace coderunner::packages
