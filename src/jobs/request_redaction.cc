#include "coderunner/jobs/request_redaction.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "coderunner/common/base64.h"
#include "coderunner/jobs/redactor.h"

namespace coderunner::jobs {
namespace {

using nlohmann::json;

constexpr const char* kRedactedKey = "redacted";

// Redacts one string in place; true if it changed.
bool RedactString(json& value) {
  const std::string& text = value.get_ref<const std::string&>();
  std::string clean = RedactSecrets(text);
  if (clean == text) return false;
  value = std::move(clean);
  return true;
}

// A base64 file's content: redacted as the bytes it stands for.
bool RedactBase64(json& value) {
  auto bytes = Base64Decode(value.get_ref<const std::string&>());
  if (!bytes.ok()) return false;
  std::string clean = RedactSecrets(*bytes);
  if (clean == *bytes) return false;
  value = Base64Encode(clean);
  return true;
}

bool IsBase64File(const json& object) {
  auto enc = object.find("encoding");
  return enc != object.end() && enc->is_string() && *enc == "base64" &&
         object.contains("content") && object["content"].is_string();
}

// Every string below `root`, without recursion (the request's depth was
// bounded at the edge, but nothing here relies on it).
bool RedactTree(json& root) {
  bool changed = false;
  std::vector<json*> todo = {&root};
  while (!todo.empty()) {
    json* v = todo.back();
    todo.pop_back();
    if (v->is_string()) {
      changed |= RedactString(*v);
    } else if (v->is_object()) {
      const bool base64_file = IsBase64File(*v);
      for (auto& [key, item] : v->items()) {
        if (base64_file && key == "content") {
          changed |= RedactBase64(item);
        } else {
          todo.push_back(&item);
        }
      }
    } else if (v->is_array()) {
      for (auto& item : *v) todo.push_back(&item);
    }
  }
  return changed;
}

// scheme://[userinfo@]host[:port]/path[?query][#fragment]: user info and
// query (and fragment) become "[REDACTED]".
std::string RedactUrl(const std::string& url) {
  std::string out = url;
  size_t authority = out.find("://");
  if (authority != std::string::npos) {
    authority += 3;
    size_t end = out.find_first_of("/?#", authority);
    size_t at = out.rfind('@', end == std::string::npos ? out.size() : end);
    if (at != std::string::npos && at >= authority) {
      out.replace(authority, at - authority, std::string(kRedacted));
    }
  }
  size_t query = out.find_first_of("?#");
  if (query != std::string::npos) out = out.substr(0, query + 1) + std::string(kRedacted);
  return out;
}

}  // namespace

void RedactStoredRequest(std::string& request_json, std::string& callback_url) {
  if (!callback_url.empty()) callback_url = RedactUrl(callback_url);
  json envelope = json::parse(request_json, nullptr, /*allow_exceptions=*/false);
  if (!envelope.is_object()) {
    request_json = json{{kRedactedKey, true}}.dump();
    return;
  }
  auto request = envelope.find("request");
  if (request == envelope.end() || !RedactTree(*request)) return;
  envelope[kRedactedKey] = true;
  request_json = envelope.dump();
}

bool StoredRequestWasRedacted(const std::string& request_json) {
  json envelope = json::parse(request_json, nullptr, /*allow_exceptions=*/false);
  if (!envelope.is_object()) return false;
  auto flag = envelope.find(kRedactedKey);
  return flag != envelope.end() && flag->is_boolean() && flag->get<bool>();
}

}  // namespace coderunner::jobs
