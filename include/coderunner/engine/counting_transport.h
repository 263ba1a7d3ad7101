// CountingTransport: a Transport that counts the requests it passes on, so
// that what reaches the engine can be seen in /metrics.
#ifndef CODERUNNER_ENGINE_COUNTING_TRANSPORT_H_
#define CODERUNNER_ENGINE_COUNTING_TRANSPORT_H_

#include "coderunner/common/metrics.h"
#include "coderunner/engine/transport.h"

namespace coderunner::engine {

// Forwards every call to `inner` unchanged and counts it in the counter
// coderunner_engine_requests_total{method} (GET, POST, DELETE), whether it
// succeeds or not. Does not own `inner` or `metrics`, which must outlive
// it. Thread-safe when `inner` is.
class CountingTransport : public Transport {
 public:
  CountingTransport(Transport& inner, MetricsRegistry& metrics);

  StatusOr<HttpResponse> Do(const HttpRequest& request) override;
  StatusOr<HttpResponse> Stream(const HttpRequest& request, const ChunkSink& sink,
                                const std::function<void(long status)>& on_response,
                                StreamAbort* abort) override;

 private:
  void Count(const HttpRequest& request);

  Transport& inner_;
  MetricsRegistry& metrics_;
};

}  // namespace coderunner::engine

#endif  // CODERUNNER_ENGINE_COUNTING_TRANSPORT_H_
