// WantsPreload and PrestartWords (coderunner/isolation/prestart.h): which
// jobs' pooled containers load the language's preload, and the words
// coderunner-init prestarts.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "isolation/prestart.h"

namespace coderunner::isolation {
namespace {

JobSpec PythonJob(std::string code) {
  JobSpec job;
  job.language.name = "python";
  job.language.prestart = {"python3", "-c", config::kPythonPrestartWord};
  job.language.preload = {"numpy", "pandas", "matplotlib", "matplotlib.pyplot"};
  job.code = std::move(code);
  return job;
}

TEST(WantsPreloadTest, OnlyCodeThatNamesAPreloadedModuleWithRoomAndNoShadow) {
  struct Case {
    const char* name;
    std::string code;
    std::vector<InputFile> files;
    int64_t memory_bytes;
    bool want;
  };
  const int64_t kDefault = 256LL << 20;
  const Case kCases[] = {
      {"import", "import pandas as pd\n", {}, kDefault, true},
      {"from import", "from numpy import array\n", {}, kDefault, true},
      {"dotted", "import matplotlib.pyplot as plt\n", {}, kDefault, true},
      {"among others", "import os, sys, numpy\n", {}, kDefault, true},
      {"no data module", "print(1+1)\n", {}, kDefault, false},
      {"a longer word", "import pandas_helpers\nnumpyish = 1\n", {}, kDefault, false},
      {"a prefix", "import my_numpy\n", {}, kDefault, false},
      {"below the memory floor", "import pandas\n", {}, 128LL << 20, false},
      {"a file shadows it", "import pandas\n", {{"numpy.py", ""}}, kDefault, false},
      {"a package shadows it",
       "import pandas\n",
       {{"matplotlib/__init__.py", ""}},
       kDefault,
       false},
      {"an unrelated file", "import pandas\n", {{"data/numpy.csv", ""}}, kDefault, true},
  };
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    JobSpec job = PythonJob(c.code);
    job.files = c.files;
    job.limits.memory_bytes = c.memory_bytes;
    EXPECT_EQ(WantsPreload(job), c.want);
  }
  JobSpec with_packages = PythonJob("import pandas\n");
  with_packages.python_packages = {"pandas==2.2.0"};
  EXPECT_FALSE(WantsPreload(with_packages)) << "its own pandas must win";
  JobSpec no_preload = PythonJob("import pandas\n");
  no_preload.language.preload.clear();
  EXPECT_FALSE(WantsPreload(no_preload));
  JobSpec no_prestart = PythonJob("import pandas\n");
  no_prestart.language.prestart.clear();
  EXPECT_FALSE(WantsPreload(no_prestart));
}

TEST(PrestartWordsTest, ThePrestartExpandedAndThePreloadOnlyWhenAsked) {
  JobSpec job = PythonJob("import pandas\n");
  std::vector<std::string> plain = PrestartWords(job);
  ASSERT_EQ(plain.size(), 3u);
  EXPECT_EQ(plain[0], "python3");
  EXPECT_EQ(plain[2], std::string(config::PythonPrestartScript()));
  job.preload = true;
  std::vector<std::string> loaded = PrestartWords(job);
  ASSERT_EQ(loaded.size(), 7u);
  EXPECT_EQ(loaded[3], "numpy");
  EXPECT_EQ(loaded[6], "matplotlib.pyplot");
  job.language.prestart.clear();
  EXPECT_TRUE(PrestartWords(job).empty());
}

}  // namespace
}  // namespace coderunner::isolation
