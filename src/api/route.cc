#include "route.h"

#include <sys/stat.h>

#include <type_traits>

#include "http_reply.h"
#include "response_headers.h"

namespace coderunner::api {

Answer Answer::Json(int status, nlohmann::json body) {
  Answer a;
  a.status = status;
  a.body = std::move(body);
  return a;
}

Answer Answer::Text(int status, std::string text, std::string content_type) {
  Answer a;
  a.status = status;
  a.body = TextBody{std::move(text), std::move(content_type)};
  return a;
}

StatusOr<Answer> Answer::File(isolation::UniqueFd fd, std::string_view path,
                              const Status& stat_error) {
  struct stat st;
  if (fstat(fd.get(), &st) != 0) return stat_error;
  Answer a;
  a.body = FileBody{std::make_shared<isolation::UniqueFd>(std::move(fd)),
                    static_cast<int64_t>(st.st_size), kDownloadContentType};
  a.headers = DownloadHeaders(path);
  return a;
}

Answer Answer::Stream(std::string content_type, httplib::ContentProviderWithoutLength provider) {
  Answer a;
  a.body = StreamBody{std::move(content_type), std::move(provider)};
  return a;
}

Answer& Answer::WithHeader(std::string name, std::string value) {
  headers.emplace_back(std::move(name), std::move(value));
  return *this;
}

void WriteAnswer(httplib::Response& res, Answer answer) {
  for (const auto& [name, value] : answer.headers) res.set_header(name, value);
  std::visit(
      [&res, status = answer.status](auto& body) {
        using T = std::decay_t<decltype(body)>;
        if constexpr (std::is_same_v<T, nlohmann::json>) {
          Reply(res, status, body);
        } else if constexpr (std::is_same_v<T, TextBody>) {
          res.status = status;
          res.set_content(body.text, body.content_type);
        } else if constexpr (std::is_same_v<T, FileBody>) {
          ReplyFile(res, body.fd->Release(), body.size, body.content_type);
          res.status = status;
        } else {
          res.status = status;
          res.set_chunked_content_provider(body.content_type, std::move(body.provider));
        }
      },
      answer.body);
}

}  // namespace coderunner::api
