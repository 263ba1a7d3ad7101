#include "mcp_resources.h"

#include <string>
#include <utility>

#include "coderunner/common/base64.h"
#include "coderunner/common/utf8.h"
#include "coderunner/isolation/safe_tree.h"
#include "mcp_content.h"

namespace coderunner::api::mcp {
namespace {

using nlohmann::json;

Status NoSuchResource(std::string_view uri) {
  return NotFoundError("no resource " + SanitizeUtf8(std::string(uri.substr(0, 256))),
                       "resource_not_found");
}

json Resource(std::string uri, const std::string& path, int64_t size, std::string description) {
  return {{"uri", std::move(uri)},
          {"name", path},
          {"description", std::move(description)},
          {"mimeType", MimeTypeOf(path)},
          {"size", size}};
}

// The artifacts job `rec`'s result lists.
json ListedArtifacts(const store::JobRecord& rec) {
  json result = json::parse(rec.result_json, nullptr, /*allow_exceptions=*/false);
  if (!result.is_object() || !result.contains("artifacts") || !result["artifacts"].is_array()) {
    return json::array();
  }
  return result["artifacts"];
}

json Contents(std::string_view uri, const std::string& path, std::string bytes) {
  std::string type = MimeTypeOf(path);
  json c = {{"uri", uri}, {"mimeType", type}};
  if (IsTextType(type) && IsValidUtf8(bytes)) {
    c["text"] = std::move(bytes);
  } else {
    c["blob"] = Base64Encode(bytes);
  }
  return {{"contents", json::array({std::move(c)})}};
}

}  // namespace

json McpResources::Templates() const {
  json templates =
      json::array({{{"uriTemplate", kJobArtifactTemplate},
                    {"name", "job artifact"},
                    {"description", "a file a job wrote under /output, as its result lists it"}}});
  if (sandboxes_ != nullptr) {
    templates.push_back({{"uriTemplate", kSandboxFileTemplate},
                         {"name", "sandbox file"},
                         {"description", "a file under a running sandbox's /output"}});
  }
  return {{"resourceTemplates", std::move(templates)}};
}

json McpResources::List(const std::string& tenant) const {
  json resources = json::array();
  store::ListFilter filter;
  filter.tenant = tenant;
  filter.limit = kListedJobs;
  if (auto page = jobs_.List(filter); page.ok()) {
    for (const auto& summary : page->jobs) {
      auto rec = jobs_.Get(summary.id, tenant);
      if (!rec.ok()) continue;
      for (const auto& a : ListedArtifacts(*rec)) {
        if (!a.is_object() || !a.contains("path") || !a["path"].is_string()) continue;
        std::string path = a["path"];
        resources.push_back(Resource(JobArtifactUri(rec->id, path), path, a.value("size", 0),
                                     "written by job " + rec->id));
      }
    }
  }
  if (sandboxes_ != nullptr) {
    for (const auto& s : sandboxes_->List(tenant, sandboxes::SandboxState::kRunning, "")) {
      auto files = sandboxes_->Files(tenant, s.id);
      if (!files.ok()) continue;
      for (const auto& f : *files) {
        resources.push_back(Resource(SandboxFileUri(s.id, f.path), f.path, f.size,
                                     "under /output of sandbox " + s.id));
      }
    }
  }
  return {{"resources", std::move(resources)}};
}

StatusOr<json> McpResources::Read(const std::string& tenant, std::string_view uri) const {
  auto ref = ParseResourceUri(uri);
  if (!ref) return NoSuchResource(uri);
  if (ref->kind == ResourceRef::Kind::kSandboxFile) {
    if (sandboxes_ == nullptr) return NoSuchResource(uri);
    auto fd = sandboxes_->OpenFile(tenant, ref->owner, ref->path);
    if (!fd.ok())
      return fd.status().code() == StatusCode::kNotFound ? NoSuchResource(uri) : fd.status();
    CR_ASSIGN_OR_RETURN(std::string bytes, ReadBounded(*fd, kMaxResourceBytes));
    return Contents(uri, ref->path, std::move(bytes));
  }
  auto rec = jobs_.Get(ref->owner, tenant);
  if (!rec.ok())
    return rec.status().code() == StatusCode::kNotFound ? NoSuchResource(uri) : rec.status();
  // The result's list is the contract: only what it names is served.
  bool listed = false;
  for (const auto& a : ListedArtifacts(*rec)) {
    if (a.is_object() && a.value("path", "") == ref->path) listed = true;
  }
  if (!listed) return NoSuchResource(uri);
  auto fd = isolation::OpenTreeFile(config_.artifacts.dir + "/" + rec->id, ref->path);
  if (!fd.ok())
    return fd.status().code() == StatusCode::kNotFound ? NoSuchResource(uri) : fd.status();
  CR_ASSIGN_OR_RETURN(std::string bytes, ReadBounded(*fd, kMaxResourceBytes));
  return Contents(uri, ref->path, std::move(bytes));
}

json McpResources::Prompts() {
  return {{"prompts",
           json::array(
               {{{"name", "run_snippet"},
                 {"title", "Run a snippet"},
                 {"description", "Write a short program for a task and run it with run_code"},
                 {"arguments",
                  json::array(
                      {{{"name", "task"}, {"description", "what to compute"}, {"required", true}},
                       {{"name", "language"},
                        {"description", "python, javascript, typescript or bash"},
                        {"required", false}}})}},
                {{"name", "analyze_data"},
                 {"title", "Analyze data in a sandbox"},
                 {"description",
                  "Load data into a Python sandbox, explore it step by step and plot it"},
                 {"arguments", json::array({{{"name", "data"},
                                             {"description", "the data (CSV or JSON text)"},
                                             {"required", true}}})}}})}};
}

StatusOr<json> McpResources::Prompt(std::string_view name, const json& arguments) {
  auto arg = [&arguments](const char* key) -> std::string {
    auto it = arguments.find(key);
    return it != arguments.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  std::string text;
  if (name == "run_snippet") {
    if (arg("task").empty())
      return InvalidArgumentError("argument task is required", "invalid_request");
    std::string language = arg("language").empty() ? "python" : arg("language");
    text = "Write a short " + language + " program that does the following, run it with the " +
           "run_code tool, and answer from its output:\n\n" + arg("task");
  } else if (name == "analyze_data") {
    if (arg("data").empty())
      return InvalidArgumentError("argument data is required", "invalid_request");
    text =
        "Create a Python sandbox with sandbox_create, load this data into a pandas DataFrame "
        "with sandbox_execute, explore it step by step, save a plot to /output/plot.png, and "
        "summarize what you found:\n\n" +
        arg("data");
  } else {
    return InvalidArgumentError("unknown prompt: " + SanitizeUtf8(std::string(name.substr(0, 128))),
                                "invalid_request");
  }
  return json{{"messages",
               json::array({{{"role", "user"}, {"content", {{"type", "text"}, {"text", text}}}}})}};
}

}  // namespace coderunner::api::mcp
