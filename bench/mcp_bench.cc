#include "mcp_bench.h"

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "bench_common.h"

namespace bench {
namespace {

using nlohmann::json;

constexpr char kAccept[] = "application/json, text/event-stream";

// initialize, then notifications/initialized; the session id, or "".
std::string OpenSession(httplib::Client& c) {
  json init = {{"jsonrpc", "2.0"},
               {"id", 0},
               {"method", "initialize"},
               {"params",
                {{"protocolVersion", "2025-06-18"},
                 {"capabilities", json::object()},
                 {"clientInfo", {{"name", "service_bench"}, {"version", "1"}}}}}};
  auto r = c.Post("/mcp", {{"Accept", kAccept}}, init.dump(), "application/json");
  if (!r || r->status != 200 || !r->has_header("Mcp-Session-Id")) return "";
  std::string session = r->get_header_value("Mcp-Session-Id");
  json ready = {{"jsonrpc", "2.0"}, {"method", "notifications/initialized"}};
  (void)c.Post("/mcp", {{"Accept", kAccept}, {"Mcp-Session-Id", session}}, ready.dump(),
               "application/json");
  return session;
}

// One tools/call run_code of `code`; true when its response (the last
// event of the stream) says it printed "2".
bool RunCodeTwo(httplib::Client& c, const std::string& session, int id, const std::string& code) {
  json call = {
      {"jsonrpc", "2.0"},
      {"id", id},
      {"method", "tools/call"},
      {"params", {{"name", "run_code"}, {"arguments", {{"language", "python"}, {"code", code}}}}}};
  auto r = c.Post("/mcp", {{"Accept", kAccept}, {"Mcp-Session-Id", session}}, call.dump(),
                  "application/json");
  if (!r || r->status != 200) return false;
  size_t data = r->body.rfind("data: ");
  if (data == std::string::npos) return false;
  json response = json::parse(r->body.substr(data + 6), nullptr, /*allow_exceptions=*/false);
  return response.is_object() && response.contains("result") &&
         response["result"]["structuredContent"].value("stdout", "") == "2\n";
}

}  // namespace

void McpLatency(httplib::Client& service, int jobs) {
  printf(
      "\n== mcp: python print(1+1), %d runs each way, interleaved (ms: p50 p95 p99, ratio to "
      "/v1/execute)\n",
      jobs);
  std::string session = OpenSession(service);
  if (session.empty()) {
    printf("  (no MCP session: is mcp.enabled false?)\n");
    return;
  }
  Series rest{"POST /v1/execute", {}, 0}, mcp{"MCP run_code (Streamable HTTP)", {}, 0};
  for (int i = 0; i < jobs; ++i) {
    std::string code = "print(1+1)  # " + UniqueTag(i);
    Measure(rest, [&] { return ExecuteTwo(service, "python", code); });
    LetPoolSettle(service);
    Measure(mcp, [&] { return RunCodeTwo(service, session, i + 1, code + "m"); });
    LetPoolSettle(service);
  }
  (void)service.Delete("/mcp", {{"Mcp-Session-Id", session}});
  double base = Percentile(rest.ms, 0.5);
  PrintSeries(rest, base);
  PrintSeries(mcp, base);
  printf("  MCP / REST p50: %.2fx (at most 1.2x)\n", Percentile(mcp.ms, 0.5) / base);
}

}  // namespace bench
