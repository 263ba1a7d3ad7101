// CurlStreamRelay (owner_forwarder.h): an exchange with an owner node whose
// answer reaches the caller piece by piece, driven through a libcurl multi
// handle on the caller's own thread: the handler drives it until the
// owner's headers are in, then httplib's content provider drives it on,
// one piece at a time, as the caller reads. Nothing runs on a thread of
// its own, and the owner is read no faster than the caller reads: the
// piece after the one held waits in libcurl, paused.
#include <curl/curl.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "coderunner/common/curl_handle.h"
#include "owner_forwarder.h"
#include "relay_curl.h"

namespace coderunner::api {
namespace {

// One relay in flight; lives as long as httplib's copies of its provider.
struct StreamedRelay {
  RelayRequest req;  // Outlives the transfer: libcurl reads its URL and body.
  RelayResponse head;
  RelayTransfer transfer;
  CURLM* multi = nullptr;
  bool finished = false;
  CURLcode result = CURLE_OK;
  // Body bytes read but not yet written to the caller: one piece (libcurl
  // holds the next one, paused, until this one is written).
  std::string pending;
  bool paused = false;

  ~StreamedRelay() {
    if (multi == nullptr) return;
    curl_multi_remove_handle(multi, transfer.easy.get());
    curl_multi_cleanup(multi);
  }
};

size_t KeepBody(char* data, size_t size, size_t n, void* user) {
  auto* relay = static_cast<StreamedRelay*>(user);
  if (!relay->pending.empty()) {
    relay->paused = true;
    return CURL_WRITEFUNC_PAUSE;  // Offered again once unpaused.
  }
  relay->pending.assign(data, size * n);
  return size * n;
}

// Runs the transfer for up to `wait_ms` or until it has something new.
void Step(StreamedRelay& r, int wait_ms) {
  int running = 0;
  curl_multi_perform(r.multi, &running);
  if (running > 0 && r.pending.empty()) {
    curl_multi_poll(r.multi, nullptr, 0, wait_ms, nullptr);
    curl_multi_perform(r.multi, &running);
  }
  int left = 0;
  while (CURLMsg* msg = curl_multi_info_read(r.multi, &left)) {
    if (msg->msg != CURLMSG_DONE) continue;
    r.finished = true;
    r.result = msg->data.result;
  }
}

// The provider of a stream whose headers are in: writes what is pending,
// then drives the transfer on until it ends or the caller goes.
httplib::ContentProviderWithoutLength Provider(std::shared_ptr<StreamedRelay> relay) {
  return [relay](size_t, httplib::DataSink& sink) {
    StreamedRelay& r = *relay;
    for (;;) {
      if (!r.pending.empty()) {
        if (!sink.write(r.pending.data(), r.pending.size())) return false;
        r.pending.clear();
      }
      if (r.paused) {
        r.paused = false;
        curl_easy_pause(r.transfer.easy.get(), CURLPAUSE_CONT);  // May fill pending again.
        continue;
      }
      if (r.finished) break;
      if (!sink.is_writable()) return false;  // The caller left.
      Step(r, static_cast<int>(kStreamCallerCheckMs));
    }
    if (r.result != CURLE_OK) return false;  // Cut: no terminating chunk.
    sink.done();
    return true;
  };
}

}  // namespace

StatusOr<Answer> CurlStreamRelay(RelayRequest req) {
  auto relay = std::make_shared<StreamedRelay>();
  StreamedRelay& r = *relay;
  r.req = std::move(req);
  CR_ASSIGN_OR_RETURN(r.transfer, NewRelayTransfer(r.req, &r.head));
  CURL* easy = r.transfer.easy.get();
  curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, KeepBody);
  curl_easy_setopt(easy, CURLOPT_WRITEDATA, &r);
  r.multi = curl_multi_init();
  if (r.multi == nullptr || curl_multi_add_handle(r.multi, easy) != CURLM_OK) {
    return InternalError("curl_multi_init failed", kReasonForwardFailed);
  }
  // Until the owner's headers are in: the first piece of the body, or the
  // end of the whole answer.
  const auto start = std::chrono::steady_clock::now();
  const std::chrono::milliseconds first_piece(r.req.first_piece_timeout_ms);
  while (!r.finished && r.pending.empty()) {
    if (first_piece.count() > 0 && std::chrono::steady_clock::now() - start > first_piece) {
      return DeadlineExceededError(r.req.method + " " + r.req.url +
                                       ": the owner sent nothing within " +
                                       std::to_string(first_piece.count()) + " ms",
                                   kReasonForwardFailed);
    }
    Step(r, static_cast<int>(kStreamCallerCheckMs));
  }
  if (r.finished && r.result != CURLE_OK) return RelayFailure(r.result, r.req);
  long status = 0;
  curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
  const std::string type =
      r.head.content_type.empty() ? "application/octet-stream" : r.head.content_type;
  Answer answer = r.finished ? Answer::Text(static_cast<int>(status), std::move(r.pending), type)
                             : Answer::Stream(type, Provider(relay));
  answer.status = static_cast<int>(status);
  for (auto& [name, value] : r.head.headers) answer.WithHeader(name, std::move(value));
  return answer;
}

}  // namespace coderunner::api
