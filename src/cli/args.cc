#include "args.h"

#include <charconv>
#include <cstdlib>
#include <set>

#include "exit_codes.h"

namespace coderunner::cli {
namespace {

using nlohmann::json;

Status Usage(const std::string& command, const std::string& why) {
  return InvalidArgumentError(command + ": " + why + " (see coderunner " + command + " --help)",
                              kReasonUsage);
}

// Walks argv one option at a time. "--name=value" is split so that every
// option also takes its value in the next argument; "--" ends the options.
class Scanner {
 public:
  Scanner(const std::vector<std::string>& argv, std::string command)
      : argv_(argv), command_(std::move(command)) {}

  // Advances to the next argument; false at the end.
  bool Next() {
    if (i_ >= argv_.size()) return false;
    arg_ = argv_[i_++];
    inline_value_.reset();
    if (!after_dashes_ && arg_.rfind("--", 0) == 0 && arg_.size() > 2) {
      size_t eq = arg_.find('=');
      if (eq != std::string::npos) {
        inline_value_ = arg_.substr(eq + 1);
        arg_.resize(eq);
      }
    }
    return true;
  }
  const std::string& arg() const { return arg_; }
  // True for "--" (after which everything is positional).
  bool IsDashes() {
    if (after_dashes_ || arg_ != "--") return false;
    after_dashes_ = true;
    return true;
  }
  // An option (starts with '-' but is not "-" itself), before any "--".
  bool IsOption() const { return !after_dashes_ && arg_.size() > 1 && arg_[0] == '-'; }
  bool after_dashes() const { return after_dashes_; }

  StatusOr<std::string> Value() {
    if (inline_value_) return *inline_value_;
    if (i_ >= argv_.size()) return Usage(command_, arg_ + " needs a value");
    return argv_[i_++];
  }
  StatusOr<int64_t> IntValue(int64_t min) {
    CR_ASSIGN_OR_RETURN(std::string v, Value());
    int64_t n = 0;
    auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (ec != std::errc() || end != v.data() + v.size() || n < min) {
      return Usage(command_, arg_ + " expects an integer of at least " + std::to_string(min) +
                                 ", not '" + v + "'");
    }
    return n;
  }
  // Options every client command knows; true if `arg` was one of them.
  StatusOr<bool> Common(CommonArgs* common) {
    if (arg_ == "--help" || arg_ == "-h") {
      common->help = true;
    } else if (arg_ == "--json") {
      common->json = true;
    } else if (arg_ == "--server") {
      CR_ASSIGN_OR_RETURN(common->server, Value());
    } else {
      return false;
    }
    return true;
  }
  Status Unknown() const { return Usage(command_, "unknown option " + arg_); }
  Status Extra() const { return Usage(command_, "unexpected argument '" + arg_ + "'"); }

 private:
  const std::vector<std::string>& argv_;
  std::string command_;
  size_t i_ = 0;
  std::string arg_;
  std::optional<std::string> inline_value_;
  bool after_dashes_ = false;
};

}  // namespace

StatusOr<RunArgs> ParseRunArgs(const std::vector<std::string>& argv) {
  RunArgs out;
  Scanner s(argv, "run");
  bool have_source = false;
  while (s.Next()) {
    if (s.IsDashes()) continue;
    if (s.IsOption()) {
      CR_ASSIGN_OR_RETURN(bool common, s.Common(&out.common));
      if (common) continue;
      if (s.arg() == "--lang") {
        CR_ASSIGN_OR_RETURN(out.language, s.Value());
      } else if (s.arg() == "--stdin") {
        CR_ASSIGN_OR_RETURN(out.stdin_path, s.Value());
      } else if (s.arg() == "--file") {
        CR_ASSIGN_OR_RETURN(std::string f, s.Value());
        out.files.push_back(std::move(f));
      } else if (s.arg() == "--arg") {
        CR_ASSIGN_OR_RETURN(std::string a, s.Value());
        out.args.push_back(std::move(a));
      } else if (s.arg() == "--timeout") {
        CR_ASSIGN_OR_RETURN(out.timeout_ms, s.IntValue(1));
      } else if (s.arg() == "--memory") {
        CR_ASSIGN_OR_RETURN(out.memory_bytes, s.IntValue(1));
      } else {
        return s.Unknown();
      }
    } else if (!have_source) {
      out.source = s.arg();
      have_source = true;
    } else if (s.after_dashes()) {
      out.args.push_back(s.arg());
    } else {
      return s.Extra();
    }
  }
  if (out.common.help) return out;
  if (!have_source) return Usage("run", "name a program file, or - to read it from stdin");
  if (out.source == "-" && out.stdin_path == "-") {
    return Usage("run", "the program already comes from stdin; --stdin - cannot also");
  }
  return out;
}

StatusOr<JudgeArgs> ParseJudgeArgs(const std::vector<std::string>& argv) {
  JudgeArgs out;
  Scanner s(argv, "judge");
  std::vector<std::string> positional;
  while (s.Next()) {
    if (s.IsDashes()) continue;
    if (!s.IsOption()) {
      if (positional.size() == 2) return s.Extra();
      positional.push_back(s.arg());
      continue;
    }
    CR_ASSIGN_OR_RETURN(bool common, s.Common(&out.common));
    if (common) continue;
    if (s.arg() == "--lang") {
      CR_ASSIGN_OR_RETURN(out.language, s.Value());
    } else if (s.arg() == "--compare") {
      CR_ASSIGN_OR_RETURN(out.compare, s.Value());
    } else if (s.arg() == "--tolerance") {
      CR_ASSIGN_OR_RETURN(std::string v, s.Value());
      char* end = nullptr;
      double x = std::strtod(v.c_str(), &end);
      if (v.empty() || end != v.c_str() + v.size() || !(x >= 0) || x > 1e300) {
        return Usage("judge", "--tolerance expects a number of at least 0, not '" + v + "'");
      }
      out.tolerance = x;
    } else if (s.arg() == "--stop") {
      out.stop = true;
    } else if (s.arg() == "--timeout") {
      CR_ASSIGN_OR_RETURN(out.timeout_ms, s.IntValue(1));
    } else if (s.arg() == "--memory") {
      CR_ASSIGN_OR_RETURN(out.memory_bytes, s.IntValue(1));
    } else {
      return s.Unknown();
    }
  }
  if (out.common.help) return out;
  if (positional.size() < 2) {
    return Usage("judge", "name a program file and a directory of cases (NAME.in, NAME.out)");
  }
  out.source = positional[0];
  out.cases_dir = positional[1];
  return out;
}

StatusOr<IntentArgs> ParseIntentArgs(const std::vector<std::string>& argv) {
  IntentArgs out;
  Scanner s(argv, "intent");
  bool have_intent = false;
  while (s.Next()) {
    if (s.IsDashes()) continue;
    if (s.IsOption()) {
      CR_ASSIGN_OR_RETURN(bool common, s.Common(&out.common));
      if (common) continue;
      if (s.arg() == "--lang") {
        CR_ASSIGN_OR_RETURN(out.language, s.Value());
      } else if (s.arg() == "--verify") {
        CR_ASSIGN_OR_RETURN(out.verify, s.Value());
        if (out.verify != "off" && out.verify != "checks" && out.verify != "full") {
          return Usage("intent", "--verify expects off, checks or full, not '" + out.verify + "'");
        }
      } else if (s.arg() == "--input") {
        CR_ASSIGN_OR_RETURN(std::string spec, s.Value());
        size_t eq = spec.find('=');
        if (eq == std::string::npos || eq == 0) {
          return Usage("intent", "--input expects NAME=VALUE, not '" + spec + "'");
        }
        std::string name = spec.substr(0, eq);
        if (out.inputs.is_null()) out.inputs = json::object();
        if (out.inputs.contains(name)) return Usage("intent", "input '" + name + "' given twice");
        out.inputs[name] = InputValue(spec.substr(eq + 1));
      } else {
        return s.Unknown();
      }
    } else if (!have_intent) {
      out.intent = s.arg();
      have_intent = true;
    } else {
      return s.Extra();
    }
  }
  if (out.common.help) return out;
  if (!have_intent || out.intent.empty()) {
    return Usage("intent", "say what to do, e.g. coderunner intent \"add 2 numbers\"");
  }
  return out;
}

StatusOr<SandboxArgs> ParseSandboxArgs(const std::vector<std::string>& argv) {
  SandboxArgs out;
  Scanner s(argv, "sandbox");
  std::vector<std::string> positional;
  while (s.Next()) {
    if (s.IsDashes()) continue;
    if (s.IsOption()) {
      CR_ASSIGN_OR_RETURN(bool common, s.Common(&out.common));
      if (common) continue;
      if (s.arg() == "--lang") {
        CR_ASSIGN_OR_RETURN(out.language, s.Value());
      } else if (s.arg() == "--ttl") {
        CR_ASSIGN_OR_RETURN(out.ttl_s, s.IntValue(1));
      } else if (s.arg() == "-c") {
        CR_ASSIGN_OR_RETURN(out.code, s.Value());
      } else if (s.arg() == "--file") {
        CR_ASSIGN_OR_RETURN(std::string f, s.Value());
        out.files.push_back(std::move(f));
      } else if (s.arg() == "--timeout") {
        CR_ASSIGN_OR_RETURN(out.timeout_ms, s.IntValue(1));
      } else {
        return s.Unknown();
      }
    } else {
      positional.push_back(s.arg());
    }
  }
  if (out.common.help && positional.empty()) return out;
  if (positional.empty()) return Usage("sandbox", "name an action: create, exec, rm or ls");
  out.action = positional[0];
  if (out.common.help) return out;
  // Which options and how many positionals each action takes.
  const std::set<std::string> actions = {"create", "exec", "rm", "ls"};
  if (actions.count(out.action) == 0) {
    return Usage("sandbox", "unknown action '" + out.action + "' (create, exec, rm, ls)");
  }
  bool create = out.action == "create", exec = out.action == "exec";
  if (!create && (!out.language.empty() || out.ttl_s)) {
    return Usage("sandbox", "--lang and --ttl belong to create");
  }
  if (!exec && (out.code || !out.files.empty() || out.timeout_ms)) {
    return Usage("sandbox", "-c, --file and --timeout belong to exec");
  }
  size_t max_positional = create || out.action == "ls" ? 1 : exec ? 3 : 2;
  if (!create && out.action != "ls" && positional.size() < 2) {
    return Usage("sandbox", out.action + " needs a sandbox id");
  }
  if (positional.size() > max_positional) {
    return Usage("sandbox", "unexpected argument '" + positional[max_positional] + "'");
  }
  if (positional.size() > 1) out.id = positional[1];
  if (positional.size() > 2) out.source = positional[2];
  if (exec && out.code && !out.source.empty()) {
    return Usage("sandbox", "give the code either with -c or as FILE|-, not both");
  }
  if (exec && !out.code && out.source.empty()) out.source = "-";
  return out;
}

StatusOr<McpArgs> ParseMcpArgs(const std::vector<std::string>& argv) {
  McpArgs out;
  Scanner s(argv, "mcp");
  while (s.Next()) {
    if (s.IsDashes()) continue;
    if (!s.IsOption()) return s.Extra();
    CR_ASSIGN_OR_RETURN(bool common, s.Common(&out.common));
    if (!common) return s.Unknown();
  }
  if (out.common.json) return Usage("mcp", "--json does not apply: stdout carries MCP messages");
  return out;
}

StatusOr<ServeArgs> ParseServeArgs(const std::vector<std::string>& argv,
                                   const std::string& default_config) {
  ServeArgs out;
  out.config_path = default_config;
  for (size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == "--help" || argv[i] == "-h") {
      out.help = true;
    } else if (argv[i] == "--config" && i + 1 < argv.size()) {
      out.config_path = argv[++i];
    } else {
      // The message serve has always printed.
      return InvalidArgumentError("coderunner: unknown argument " + argv[i], kReasonUsage);
    }
  }
  return out;
}

json InputValue(const std::string& text) {
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || text.empty()) return text;
  return parsed;
}

StatusOr<std::string> LanguageFromPath(const std::string& path) {
  static const std::pair<const char*, const char*> kByExtension[] = {
      {".py", "python"},      {".js", "javascript"}, {".mjs", "javascript"}, {".ts", "typescript"},
      {".mts", "typescript"}, {".sh", "bash"},       {".bash", "bash"},      {".c", "c"},
      {".cc", "cpp"},         {".cpp", "cpp"},       {".cxx", "cpp"},        {".go", "go"},
      {".java", "java"},      {".rs", "rust"},
  };
  size_t slash = path.rfind('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  size_t dot = name.rfind('.');
  if (path != "-" && dot != std::string::npos && dot > 0) {
    std::string ext = name.substr(dot);
    for (const auto& [e, language] : kByExtension) {
      if (ext == e) return std::string(language);
    }
  }
  std::string what = path == "-" ? "a program read from stdin" : "'" + path + "'";
  return InvalidArgumentError(
      "cannot tell the language of " + what +
          " (known extensions: .py .js .mjs .ts .mts .sh .bash .c .cc .cpp .cxx .go .java .rs); "
          "pass --lang",
      kReasonUsage);
}

std::string JobPathFor(const std::string& path) {
  bool inside = !path.empty() && path[0] != '/';
  size_t start = 0;
  while (inside && start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string::npos) end = path.size();
    std::string part = path.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") inside = false;
    start = end + 1;
  }
  if (inside) return path;
  size_t slash = path.find_last_not_of('/');
  std::string trimmed = slash == std::string::npos ? "" : path.substr(0, slash + 1);
  size_t last = trimmed.rfind('/');
  return last == std::string::npos ? trimmed : trimmed.substr(last + 1);
}

}  // namespace coderunner::cli
