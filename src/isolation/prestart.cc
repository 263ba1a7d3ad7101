#include "prestart.h"

#include <string_view>

namespace coderunner::isolation {
namespace {

bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Whether `word` occurs in `text` with no word character on either side.
bool MentionsWord(std::string_view text, std::string_view word) {
  for (size_t at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
    const size_t end = at + word.size();
    const bool starts = at == 0 || !IsWordChar(text[at - 1]);
    const bool ends = end == text.size() || !IsWordChar(text[end]);
    if (starts && ends) return true;
  }
  return false;
}

std::string_view TopLevel(std::string_view module) { return module.substr(0, module.find('.')); }

// Whether a request file would be imported instead of `top`.
bool Shadows(const std::vector<InputFile>& files, std::string_view top) {
  for (const auto& f : files) {
    std::string_view first = std::string_view(f.path).substr(0, f.path.find('/'));
    if (first == top || first == std::string(top) + ".py") return true;
  }
  return false;
}

}  // namespace

bool WantsPreload(const JobSpec& job) {
  if (job.language.preload.empty() || job.language.prestart.empty()) return false;
  if (job.limits.memory_bytes < kPreloadMinMemoryBytes) return false;
  // Packages of its own come first on its path: a preloaded module would
  // stand in for the version it asked for.
  if (!job.python_packages.empty()) return false;
  bool named = false;
  for (const auto& module : job.language.preload) {
    const std::string_view top = TopLevel(module);
    if (Shadows(job.files, top)) return false;
    named = named || MentionsWord(job.code, top);
  }
  return named;
}

std::vector<std::string> PrestartWords(const JobSpec& job) {
  std::vector<std::string> words;
  for (const auto& w : job.language.prestart) {
    if (w == config::kPythonPrestartWord) {
      words.emplace_back(config::PythonPrestartScript());
    } else if (w == config::kNodePrestartWord) {
      words.emplace_back(config::NodePrestartScript());
    } else {
      words.push_back(w);
    }
  }
  if (words.empty() || !job.preload) return words;
  for (const auto& m : job.language.preload) words.push_back(m);
  return words;
}

}  // namespace coderunner::isolation
