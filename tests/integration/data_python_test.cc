// The data-science Python and the images' package lists on a real engine:
// numpy/pandas/requests/matplotlib/scipy/sympy import, a plot comes back as
// an artifact, package managers say why they cannot install, GET
// /v1/languages lists versions and packages, and the slim image is chosen
// through config alone.
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "coderunner/common/sha256.h"
#include "engine_fixture.h"

namespace coderunner::testing {
namespace {

using DataPythonTest = EngineTest;

// What images/build.sh preinstalls in coderunner/python:3.11.
const std::vector<std::string> kDataPackages = {"numpy",      "pandas", "requests",
                                                "matplotlib", "scipy",  "sympy"};

// For a job whose run time the test is not about: the data stack's import
// alone takes half a second on an idle machine, and CI has stalled such a
// job past the 10 s default under load.
nlohmann::json Unhurried() { return {{"limits", {{"timeout_ms", 30000}}}}; }

// The /v1/languages entry named `name` (null if none).
nlohmann::json LanguageNamed(const HttpAnswer& a, const std::string& name) {
  for (const auto& l : a.json["languages"]) {
    if (l["name"] == name) return l;
  }
  ADD_FAILURE() << "no language " << name << " in " << a.body;
  return nullptr;
}

TEST_F(DataPythonTest, ImportsTheDataPackagesAtTheListedVersions) {
  nlohmann::json r = RunUncached("python",
                                 "import numpy, pandas, requests, matplotlib, scipy, sympy\n"
                                 "for m in (numpy, pandas, requests, matplotlib, scipy, sympy):\n"
                                 "    print(m.__name__, m.__version__)\n"
                                 "print('sum', int(numpy.arange(10).sum()))\n"
                                 "print('frame', pandas.DataFrame({'a': [1, 2]})['a'].sum())\n",
                                 Unhurried());
  ASSERT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["stderr"], "") << r.dump();
  auto fields = StdoutFields(r);
  EXPECT_EQ(fields["sum"], "45");
  EXPECT_EQ(fields["frame"], "3");
  // The versions the job sees are those GET /v1/languages lists.
  HttpAnswer langs = server_->Get("/v1/languages");
  ASSERT_EQ(langs.status, 200) << langs.body;
  nlohmann::json python = LanguageNamed(langs, "python");
  for (const auto& p : kDataPackages) {
    SCOPED_TRACE(p);
    ASSERT_TRUE(python["packages"].contains(p)) << python.dump();
    EXPECT_EQ(fields[p], python["packages"][p].get<std::string>());
  }
}

TEST_F(DataPythonTest, LanguagesListVersionsAliasesAndPackages) {
  HttpAnswer a = server_->Get("/v1/languages");
  ASSERT_EQ(a.status, 200) << a.body;
  nlohmann::json python = LanguageNamed(a, "python");
  ASSERT_TRUE(python["version"].is_string()) << python.dump();
  EXPECT_EQ(python["version"].get<std::string>().rfind("3.11.", 0), 0u) << python.dump();
  ASSERT_TRUE(python["packages"].is_object()) << python.dump();
  for (const auto& p : kDataPackages) {
    SCOPED_TRACE(p);
    ASSERT_TRUE(python["packages"].contains(p)) << python.dump();
    EXPECT_FALSE(python["packages"][p].get<std::string>().empty());
  }
  struct Case {
    const char* name;
    std::vector<std::string> aliases;
    const char* version_prefix;
  };
  const Case node_cases[] = {{"javascript", {"js"}, "20."}, {"typescript", {"ts"}, "20."}};
  for (const auto& c : node_cases) {
    SCOPED_TRACE(c.name);
    nlohmann::json l = LanguageNamed(a, c.name);
    EXPECT_EQ(l["aliases"], nlohmann::json(c.aliases));
    ASSERT_TRUE(l["version"].is_string()) << l.dump();
    EXPECT_EQ(l["version"].get<std::string>().rfind(c.version_prefix, 0), 0u) << l.dump();
    ASSERT_TRUE(l["packages"].is_object()) << l.dump();
    ASSERT_TRUE(l["packages"].contains("tsx")) << l.dump();
    EXPECT_FALSE(l["packages"]["tsx"].get<std::string>().empty());
  }
  nlohmann::json bash = LanguageNamed(a, "bash");
  for (const char* tool :
       {"coreutils", "findutils", "grep", "sed", "gawk", "bc", "dc", "jq", "diffutils"}) {
    EXPECT_TRUE(bash["packages"].contains(tool)) << tool << ": " << bash.dump();
  }
  EXPECT_TRUE(bash["version"].is_string()) << bash.dump();
}

TEST_F(DataPythonTest, PlotComesBackAsAnArtifactAndOnlyTmpIsWritten) {
  // HOME=/tmp: matplotlib and fontconfig keep their config and cache dirs
  // there. The root filesystem is read-only, so succeeding proves nothing
  // else was written; the job lists what it left in /tmp.
  nlohmann::json r =
      RunUncached("python",
                  "import os\n"
                  "import matplotlib\n"
                  "import matplotlib.pyplot as plt\n"
                  "fig, ax = plt.subplots()\n"
                  "ax.plot([1, 2, 3], [1, 4, 9])\n"
                  "fig.savefig('/output/plot.png')\n"
                  "print('backend', matplotlib.get_backend().lower())\n"
                  "for e in sorted(os.scandir('/tmp'), key=lambda e: e.name):\n"
                  "    print('tmp', e.name + ('/' if e.is_dir(follow_symlinks=False) else ''))\n",
                  Unhurried());
  ASSERT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(StdoutFields(r)["backend"], "agg") << r.dump();
  std::set<std::string> tmp;
  std::istringstream out(r["stdout"].get<std::string>());
  for (std::string line; std::getline(out, line);) {
    if (line.rfind("tmp ", 0) == 0) tmp.insert(line.substr(4));
  }
  for (const auto& entry : tmp) {
    EXPECT_TRUE(entry == ".cache/" || entry == ".config/") << "unexpected /tmp entry " << entry;
  }
  ASSERT_EQ(r["artifacts"].size(), 1u) << r.dump();
  EXPECT_EQ(r["artifacts"][0]["path"], "plot.png");
  int64_t size = r["artifacts"][0]["size"].get<int64_t>();
  EXPECT_GT(size, 0);
  std::string id = r["id"];
  HttpAnswer png = server_->Get("/v1/jobs/" + id + "/artifacts/plot.png");
  ASSERT_EQ(png.status, 200);
  EXPECT_EQ(static_cast<int64_t>(png.body.size()), size);
  EXPECT_EQ(png.body.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(Sha256Hex(png.body), r["artifacts"][0]["sha256"]);
}

TEST_F(DataPythonTest, PackageManagersFailSayingThereIsNoNetwork) {
  struct Case {
    const char* language;
    const char* file;
    std::vector<std::string> args;
  };
  const Case cases[] = {
      {"python", "pip_install.py", {"pip", "install", "requests-toolbelt"}},
      {"python", "pip_install.py", {"pip3", "install", "requests-toolbelt"}},
      {"python", "pip_install.py", {"python3", "-m", "pip", "install", "requests-toolbelt"}},
      {"javascript", "npm_install.js", {"npm", "install", "left-pad"}},
      {"javascript", "npm_install.js", {"npx", "left-pad"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args[0] + " in " + c.language);
    nlohmann::json r = RunHostile(c.language, c.file, {{"args", c.args}});
    EXPECT_EQ(r["status"], "failed") << r.dump();
    EXPECT_EQ(r["exit_code"], 1) << r.dump();
    EXPECT_NE(r["stderr"].get<std::string>().find("without network access"), std::string::npos)
        << r.dump();
  }
}

// The slim image through config alone, as images/README.md shows it: the
// file's languages map (which replaces the built-in one) as built in but for
// python's image.
class SlimPythonTest : public EngineTest {
 protected:
  std::string ExtraConfig() const override {
    return "languages:\n"
           "  python: {image: coderunner/python:3.11-slim, file: main.py, "
           "command: [python3, \"{file}\"], default: true}\n"
           "  javascript: {image: coderunner/node:20, file: main.js, command: [node, \"{file}\"], "
           "aliases: [js]}\n"
           "  typescript: {image: coderunner/node:20, file: main.ts, command: [node, "
           "/usr/local/lib/coderunner-npm/ts-run.cjs, \"{file}\"], aliases: [ts]}\n"
           "  bash: {image: coderunner/bash:5, file: main.sh, command: [bash, \"{file}\"]}\n";
  }
};

TEST_F(SlimPythonTest, RunsPythonWithoutTheDataPackages) {
  nlohmann::json r = RunUncached("python", "print(1+1)");
  EXPECT_EQ(r["status"], "succeeded") << r.dump();
  EXPECT_EQ(r["stdout"], "2\n");
  r = RunUncached("python", "import pandas\n");
  EXPECT_EQ(r["status"], "failed") << r.dump();
  EXPECT_EQ(r["exit_code"], 1) << r.dump();
  EXPECT_NE(r["stderr"].get<std::string>().find("ModuleNotFoundError"), std::string::npos)
      << r.dump();
  HttpAnswer a = server_->Get("/v1/languages");
  ASSERT_EQ(a.status, 200) << a.body;
  EXPECT_EQ(a.json["languages"].size(), 4u) << a.body;
  nlohmann::json python = LanguageNamed(a, "python");
  EXPECT_EQ(python["image"], "coderunner/python:3.11-slim");
  EXPECT_EQ(python["default"], true);
  EXPECT_EQ(python["packages"], nlohmann::json::object()) << python.dump();
  EXPECT_TRUE(python["version"].is_string()) << python.dump();
}

}  // namespace
}  // namespace coderunner::testing
