// Requirement: a package a job asks for ("tabulate==0.9.0", "crtiny>=1,<2"),
// read strictly at the edge, so that nothing but a project name and a
// version specifier ever reaches the installer's command line.
#ifndef CODERUNNER_PACKAGES_REQUIREMENT_H_
#define CODERUNNER_PACKAGES_REQUIREMENT_H_

#include <string>
#include <string_view>

#include "coderunner/common/status.h"

namespace coderunner::packages {

// The error code of a requirement that is not one (invalid_request names
// the field; this names the package).
inline constexpr char kReasonInvalidPackage[] = "invalid_package";

struct Requirement {
  std::string name;       // Normalized (NormalizeProjectName).
  std::string specifier;  // "" (any version) or clauses: "==0.9.0", ">=1,<2".
  // What pip is given: name and specifier, e.g. "tabulate==0.9.0".
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

}  // namespace coderunner::packages

#endif  // CODERUNNER_PACKAGES_REQUIREMENT_H_
