// LlmEngineTest: an EngineTest whose server has a model to call, the
// scripted FakeLlm, started before the server so that a suite's
// ExtraConfig can point llm.base_url at it. Header-only; not thread-safe.
#ifndef CODERUNNER_TESTS_INTEGRATION_LLM_ENGINE_TEST_H_
#define CODERUNNER_TESTS_INTEGRATION_LLM_ENGINE_TEST_H_

#include <memory>

#include "engine_fixture.h"
#include "fake_llm.h"

namespace coderunner::testing {

class LlmEngineTest : public EngineTest {
 protected:
  void SetUp() override {
    llm_ = std::make_unique<FakeLlm>();
    ASSERT_TRUE(llm_->started()) << "fake llm server did not start";
    EngineTest::SetUp();
  }

  std::unique_ptr<FakeLlm> llm_;
};

}  // namespace coderunner::testing

#endif  // CODERUNNER_TESTS_INTEGRATION_LLM_ENGINE_TEST_H_
