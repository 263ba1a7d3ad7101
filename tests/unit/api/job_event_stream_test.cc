// JobEventStream (GET /v1/jobs/{id}/events) over a JobService on a SQLite
// job store and the fake engine, without workers: what each write holds.
#include "api/job_event_stream.h"

#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "api/final_records.h"
#include "coderunner/isolation/container_runner.h"
#include "coderunner/jobs/job_service.h"
#include "coderunner/store/sqlite/sqlite_job_store.h"
#include "coderunner/wire/job_submission.h"
#include "jobs/job_metrics.h"
#include "unit/jobs/job_service_fixture.h"

namespace coderunner::api {
namespace {

class JobEventStreamTest : public jobs::JobServiceFixture {
 protected:
  void SetUp() override {
    JobServiceFixture::SetUp();
    if (!HasFatalFailure()) Service();
  }

  // What one WriteNext call of `stream` wrote (all its pieces); "" if it
  // returned false.
  static std::string OneWrite(JobEventStream& stream) {
    std::string written;
    httplib::DataSink sink;
    sink.write = [&](const char* data, size_t n) {
      written.append(data, n);
      return true;
    };
    sink.done = [] {};
    sink.is_writable = [] { return true; };
    return stream.WriteNext(sink) ? written : "";
  }

  FinalRecords finals_;
};

// The first write is the `state` event on its own, even when the channel
// already has more: a client subscribing to a job that waits in the queue
// learns its state at once, not with the job's first event (or a
// keep-alive 15 s later). What the channel has comes with the next write.
TEST_F(JobEventStreamTest, TheStateEventIsAWriteOfItsOwn) {
  auto submission =
      wire::ParseJobSubmission(R"json({"code":"print(1)"})json", service_->submission_rules());
  ASSERT_TRUE(submission.ok()) << submission.status().ToString();
  auto accepted = service_->Submit("acme", std::move(*submission), nullptr);
  ASSERT_TRUE(accepted.ok()) << accepted.status().ToString();
  ASSERT_NE(accepted->channel, nullptr);
  accepted->channel->PublishOutput(false, "early\n");
  JobEventStream stream(*service_, finals_, accepted->record.id, "acme", accepted->channel);

  std::string first = OneWrite(stream);
  EXPECT_EQ(first.rfind("event: state\ndata: ", 0), 0u) << first;
  EXPECT_NE(first.find(R"("status":"queued")"), std::string::npos) << first;
  EXPECT_EQ(first.find("event: stdout"), std::string::npos) << first;

  std::string second = OneWrite(stream);
  EXPECT_EQ(second, "event: stdout\ndata: {\"data\":\"early\\n\"}\n\n");
}

}  // namespace
}  // namespace coderunner::api
