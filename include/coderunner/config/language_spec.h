// LanguageSpec: one configured language (config keys languages.<name>.*),
// run by sandbox. Plain data.
#ifndef CODERUNNER_CONFIG_LANGUAGE_SPEC_H_
#define CODERUNNER_CONFIG_LANGUAGE_SPEC_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace coderunner::config {

// How one language runs: which image, what the program file is called, and
// the command. "{file}" in `command` becomes the program's path in the
// container (/workspace/<file>); the request's args are appended.
struct LanguageSpec {
  std::string name;                  // "python", "javascript", "typescript", "bash".
  std::string image;                 // e.g. "coderunner/python:3.11".
  std::string file;                  // e.g. "main.py".
  std::vector<std::string> command;  // e.g. {"python3", "{file}"}.
  bool is_default = false;
  // OCI runtime for this language's jobs: "runc", "runsc" (gVisor) or "" (no
  // preference: sandbox.runtime applies). A tier's runtime overrides it.
  // Config key languages.<name>.runtime; default "".
  std::string runtime;
  // Other names a request may use for this language (e.g. "ts" for
  // typescript). Config key languages.<name>.aliases; default none. No
  // alias may equal another language's name or alias.
  std::vector<std::string> aliases;
  // A compiled language builds its program first, in a container of its own
  // under the limits below (isolation/compiling_runner.h): the image, the
  // program file and the request's files, no stdin, no args. What the
  // command writes into /output arrives in the run's workspace, executable,
  // and `command` runs it under the job's own limits. Empty: interpreted.
  // Config key languages.<name>.compile; "{file}" as in command.
  std::vector<std::string> compile = {};
  // The compile step's wall-clock (and CPU) time, memory (tmpfs included)
  // and the compiler's messages kept, stdout and stderr together. Config
  // keys languages.<name>.compile_timeout_ms (10 s), compile_memory_bytes
  // (512 MiB) and compile_output_bytes (64 KiB).
  int64_t compile_timeout_ms = 10000;
  int64_t compile_memory_bytes = 512LL << 20;
  int64_t compile_output_bytes = 64LL << 10;
  // The interpreter started before the job arrives, in a pooled container
  // (coderunner-init -P, src/init/prestart.h): a command that loads what it
  // may, then takes the job's argv as its release and runs it as `command`
  // would. The words "{python_prestart}" and "{node_prestart}" stand for
  // PythonPrestartScript() and NodePrestartScript(). Config key
  // languages.<name>.prestart; default python: ["python3", "-c",
  // "{python_prestart}"], javascript and typescript: ["node", "-e",
  // "{node_prestart}"], none for the others; [] = none.
  std::vector<std::string> prestart = {};
  // Modules the prestarted interpreter imports before the job arrives,
  // appended to its command, when the job's code names one of them and
  // its memory limit leaves room (isolation::WantsPreload). Config key
  // languages.<name>.preload; default python: numpy, pandas, matplotlib,
  // matplotlib.pyplot; none for the others.
  std::vector<std::string> preload = {};
};

// src/config/python_prestart.py, compiled in: the built-in python
// language's prestart, run as `python3 -c SCRIPT [MODULE]...`.
std::string_view PythonPrestartScript();
// The word of a prestart command that stands for PythonPrestartScript().
inline constexpr char kPythonPrestartWord[] = "{python_prestart}";
// src/config/node_prestart.js, compiled in: the built-in javascript and
// typescript languages' prestart, run as `node -e SCRIPT`.
std::string_view NodePrestartScript();
// The word of a prestart command that stands for NodePrestartScript().
inline constexpr char kNodePrestartWord[] = "{node_prestart}";

}  // namespace coderunner::config

#endif  // CODERUNNER_CONFIG_LANGUAGE_SPEC_H_
