#include "coderunner/engine/counting_transport.h"

namespace coderunner::engine {
namespace {

constexpr const char* kCounter = "coderunner_engine_requests_total";

}  // namespace

CountingTransport::CountingTransport(Transport& inner, MetricsRegistry& metrics)
    : inner_(inner), metrics_(metrics) {
  metrics_.DeclareCounter(kCounter, "Requests sent to the container engine's API, by method");
}

StatusOr<HttpResponse> CountingTransport::Do(const HttpRequest& request) {
  Count(request);
  return inner_.Do(request);
}

StatusOr<HttpResponse> CountingTransport::Stream(
    const HttpRequest& request, const ChunkSink& sink,
    const std::function<void(long status)>& on_response, StreamAbort* abort) {
  Count(request);
  return inner_.Stream(request, sink, on_response, abort);
}

void CountingTransport::Count(const HttpRequest& request) {
  metrics_.Increment(kCounter, {{"method", request.method}});
}

}  // namespace coderunner::engine
