// CappedOutput: one output stream of a job, held to a byte cap while it flows.
#ifndef CODERUNNER_ISOLATION_CAPPED_OUTPUT_H_
#define CODERUNNER_ISOLATION_CAPPED_OUTPUT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace coderunner::isolation {

// Keeps the first `cap` bytes written and counts the rest, plus a short tail
// of the most recent bytes (where coderunner-init's trailer lands). Memory
// use is bounded by cap + 2 * kTailBytes however much is written, and the
// work per byte by a constant however small the writes.
// Not thread-safe.
class CappedOutput {
 public:
  static constexpr size_t kTailBytes = 512;

  explicit CappedOutput(size_t cap) : cap_(cap) {}

  void Append(std::string_view bytes);

  // Removes the last `n` bytes of the stream (all of which must still be in
  // the tail), as if they had never been written. Used to strip the trailer.
  void DropSuffix(size_t n);

  const std::string& kept() const { return kept_; }
  // The last kTailBytes bytes of the stream (fewer if it is shorter).
  std::string_view tail() const;
  uint64_t total_bytes() const { return total_; }
  bool truncated() const { return total_ > kept_.size() + taken_; }

  // Moves the kept bytes out, for the stream's last reader: afterwards
  // kept() is empty while truncated() and total_bytes() still describe the
  // whole stream. Saves a copy of up to `cap` bytes when a result is built.
  std::string TakeKept();

 private:
  size_t cap_;
  std::string kept_;
  std::string tail_;  // The stream's last bytes, up to 2 * kTailBytes.
  uint64_t total_ = 0;
  size_t taken_ = 0;  // Bytes moved out by TakeKept().
};

}  // namespace coderunner::isolation

#endif  // CODERUNNER_ISOLATION_CAPPED_OUTPUT_H_
