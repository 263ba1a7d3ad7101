// Requirement: a package a job asks for ("tabulate==0.9.0", "crtiny>=1,<2";
// "lodash@4", "@scope/name@^1.2"), read strictly at the edge, so that
// nothing but a name and a version range ever reaches an installer's
// command line.
#ifndef CODERUNNER_PACKAGES_REQUIREMENT_H_
#define CODERUNNER_PACKAGES_REQUIREMENT_H_

#include <string>
#include <string_view>
#include <vector>

#include "coderunner/common/status.h"

namespace coderunner::packages {

// The error code of a requirement that is not one (invalid_request names
// the field; this names the package).
inline constexpr char kReasonInvalidPackage[] = "invalid_package";

// Where a package comes from: a Python index (pip) or an npm registry.
enum class Ecosystem { kPython, kNpm };
// "python", "npm": the key of the request's and the result's "packages".
const char* EcosystemName(Ecosystem ecosystem);
inline constexpr Ecosystem kEcosystems[] = {Ecosystem::kPython, Ecosystem::kNpm};

struct Requirement {
  std::string name;  // Python: normalized (NormalizeProjectName). npm: as given.
  // What follows the name in the ecosystem's own syntax: "" (any version),
  // Python clauses ("==0.9.0", ">=1,<2"), or npm's "@" and a range ("@^4").
  std::string specifier;
  // What the installer is given, e.g. "tabulate==0.9.0", "lodash@^4".
  std::string Text() const { return name + specifier; }
};

// Longest requirement text taken. A PEP 508 name is rarely past 50.
inline constexpr size_t kMaxRequirementBytes = 200;

// PEP 503's normalized form: lower case, every run of "-", "_" and "."
// one "-". Pure.
std::string NormalizeProjectName(std::string_view name);

// A project name (PEP 508: letters, digits, and ".", "-", "_" inside),
// then optionally one or more comma-separated clauses of an operator
// (==, !=, <=, >=, <, >, ~=, ===) and a version of [A-Za-z0-9.*+!_-]. No
// spaces, extras, markers, URLs, paths or options: InvalidArgument
// "invalid_package" naming `text` otherwise. Pure; thread-safe.
StatusOr<Requirement> ParseRequirement(std::string_view text);

// An npm package name (letters, digits, "-", ".", "_" and "~", starting
// with a letter or digit: new names are lower-case, older ones such as
// "JSONStream" not; optionally "@scope/" before it), then
// optionally "@" and a version range of digits, letters and . * + ^ ~ < > =
// | - and single spaces (">=1.2 <2", "1 || 2"), or a dist-tag ("latest").
// No URL, path, git, alias ("npm:") or option: InvalidArgument
// "invalid_package" naming `text` otherwise. Pure; thread-safe.
StatusOr<Requirement> ParseNpmRequirement(std::string_view text);

// ParseRequirement or ParseNpmRequirement. Pure; thread-safe.
StatusOr<Requirement> ParseRequirementOf(Ecosystem ecosystem, std::string_view text);

}  // namespace coderunner::packages

#endif  // CODERUNNER_PACKAGES_REQUIREMENT_H_
