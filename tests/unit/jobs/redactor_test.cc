#include "coderunner/jobs/redactor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace coderunner::jobs {
namespace {

struct Case {
  std::string input;
  std::string expected;
};

void ExpectRedactions(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input);
    EXPECT_EQ(RedactSecrets(c.input), c.expected);
  }
}

void ExpectUnchanged(const std::vector<std::string>& inputs) {
  for (const std::string& in : inputs) {
    SCOPED_TRACE(in);
    EXPECT_EQ(RedactSecrets(in), in);
  }
}

// The example key from the AWS documentation: exactly 40 characters.
const std::string kAwsSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";

TEST(RedactSecretsTest, RedactsBearerTokensAndKeepsTheWord) {
  ExpectRedactions({
      {"Authorization: Bearer abc.def-ghi", "Authorization: Bearer [REDACTED]"},
      {"authorization: bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln_-x",
       "authorization: bearer [REDACTED]"},
      {"BEARER abcdefghijkl", "BEARER [REDACTED]"},
      {"Bearer\tabc123", "Bearer\t[REDACTED]"},
      {"Bearer  dG9rZW4=", "Bearer  [REDACTED]"},
      {"curl -H 'Authorization: Bearer abc123' https://example.com",
       "curl -H 'Authorization: Bearer [REDACTED]' https://example.com"},
      {"{\"auth\":\"Bearer abc.def\"}", "{\"auth\":\"Bearer [REDACTED]\"}"},
  });
}

TEST(RedactSecretsTest, LeavesProseAroundTheWordBearerAlone) {
  ExpectUnchanged({
      "the bearer of bad news",
      "Bearer",
      "Bearer ",
      "Bearer\n",
      "bearers abcdefghijklmnop",
      "forbearer abc123",
  });
}

TEST(RedactSecretsTest, RedactsSkKeysWithSixteenOrMoreKeyCharacters) {
  ExpectRedactions({
      {"sk-0123456789abcdef", "[REDACTED]"},
      {"key: sk-abcdefghijklmnop1234 ok", "key: [REDACTED] ok"},
      {"using sk-proj-AbCdEfGhIjKlMnOpQrSt_123 now", "using [REDACTED] now"},
      {"sk-ant-api03-abcdefghijklmnopqrstuvwxyz-AA", "[REDACTED]"},
      {"\"sk-abcdefghijklmnopqrst\"", "\"[REDACTED]\""},
      {"OPENAI_API_KEY=sk-proj-abcdefghijklmnop", "OPENAI_API_KEY=[REDACTED]"},
  });
}

TEST(RedactSecretsTest, LeavesShortSkPrefixesAndWordsEndingInSkAlone) {
  ExpectUnchanged({
      "sk-",
      "sk-abc",
      "sk-0123456789abcde",  // 15 key characters.
      "task-0123456789abcdefghij",
      "risk-free-investment-strategy",
      "disk-usage-report-for-today-x",
  });
}

TEST(RedactSecretsTest, RedactsAwsAccessKeyIds) {
  ExpectRedactions({
      {"AKIAIOSFODNN7EXAMPLE", "[REDACTED]"},
      {"id=ASIAY34FZKBOKMUTVV7A, region=us-east-1", "id=[REDACTED], region=us-east-1"},
      {"keys: AKIAIOSFODNN7EXAMPLE\nASIAY34FZKBOKMUTVV7A\n", "keys: [REDACTED]\n[REDACTED]\n"},
  });
}

TEST(RedactSecretsTest, LeavesAwsLookalikesAlone) {
  ExpectUnchanged({
      "AKIAIOSFODNN7EXAMPL",    // 19 characters.
      "AKIAIOSFODNN7EXAMPLEX",  // 21 characters.
      "AKIAiosfodnn7example",   // Lower case.
      "XAKIAIOSFODNN7EXAMPLE",  // Inside a word.
      "AKIA and ASIA",
  });
}

TEST(RedactSecretsTest, RedactsAwsSecretKeysAfterEqualsColonAndQuotes) {
  ExpectRedactions({
      {"aws_secret_access_key=" + kAwsSecret, "aws_secret_access_key=[REDACTED]"},
      {"aws_secret_access_key = " + kAwsSecret + "\n", "aws_secret_access_key = [REDACTED]\n"},
      {"AWS_SECRET_ACCESS_KEY: " + kAwsSecret, "AWS_SECRET_ACCESS_KEY: [REDACTED]"},
      {"export AWS_SECRET_ACCESS_KEY=\"" + kAwsSecret + "\"",
       "export AWS_SECRET_ACCESS_KEY=\"[REDACTED]\""},
      {"{\"aws_secret_access_key\": \"" + kAwsSecret + "\"}",
       "{\"aws_secret_access_key\": \"[REDACTED]\"}"},
      {"secret_access_key='" + kAwsSecret + "'", "secret_access_key='[REDACTED]'"},
  });
}

TEST(RedactSecretsTest, LeavesAwsSecretKeyNameWithoutValueAlone) {
  ExpectUnchanged({
      "aws_secret_access_key",
      "set aws_secret_access_key in ~/.aws/credentials",
      "aws_secret_access_key=",
      "aws_secret_access_key == " + kAwsSecret,
  });
}

TEST(RedactSecretsTest, RedactsPemPrivateKeyBlocks) {
  const std::string body = "\nMIIEowIBAAKCAQEAx1y\n+/abc==\n";
  ExpectRedactions({
      {"before\n-----BEGIN RSA PRIVATE KEY-----" + body + "-----END RSA PRIVATE KEY-----\nafter",
       "before\n[REDACTED]\nafter"},
      {"-----BEGIN EC PRIVATE KEY-----" + body + "-----END EC PRIVATE KEY-----", "[REDACTED]"},
      {"-----BEGIN OPENSSH PRIVATE KEY-----" + body + "-----END OPENSSH PRIVATE KEY-----\n",
       "[REDACTED]\n"},
      {"-----BEGIN PRIVATE KEY-----" + body + "-----END PRIVATE KEY-----", "[REDACTED]"},
      {"-----BEGIN ENCRYPTED PRIVATE KEY-----" + body + "-----END ENCRYPTED PRIVATE KEY-----",
       "[REDACTED]"},
      // JSON-escaped newlines.
      {"{\"key\": \"-----BEGIN PRIVATE KEY-----\\nMIIE\\n-----END PRIVATE KEY-----\\n\"}",
       "{\"key\": \"[REDACTED]\\n\"}"},
  });
}

TEST(RedactSecretsTest, RedactsCutOffPemBlockToTheEnd) {
  ExpectRedactions({
      {"x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA", "x\n[REDACTED]"},
      {"-----BEGIN RSA PRIVATE KEY-----", "[REDACTED]"},
      // An END line of another kind does not end the block.
      {"-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\ntail", "[REDACTED]"},
  });
}

TEST(RedactSecretsTest, RedactsEachOfSeveralPemBlocks) {
  ExpectRedactions({
      {"a\n-----BEGIN EC PRIVATE KEY-----\nAA\n-----END EC PRIVATE KEY-----\nb\n"
       "-----BEGIN RSA PRIVATE KEY-----\nBB\n-----END RSA PRIVATE KEY-----\nc",
       "a\n[REDACTED]\nb\n[REDACTED]\nc"},
  });
}

TEST(RedactSecretsTest, LeavesPublicPemBlocksAlone) {
  ExpectUnchanged({
      "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n",
      "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----\n",
      "-----BEGIN RSA PUBLIC KEY-----\nMIIB\n-----END RSA PUBLIC KEY-----\n",
      "-----BEGIN PRIVATE KEY",
      "-----BEGIN xPRIVATE KEY-----",
  });
}

TEST(RedactSecretsTest, RedactsValuesOfPasswordTokenSecretAndApiKeyPairs) {
  ExpectRedactions({
      {"password=hunter2", "password=[REDACTED]"},
      {"PASSWORD=hunter2 next", "PASSWORD=[REDACTED] next"},
      {"passwd: hunter2", "passwd: [REDACTED]"},
      {"pwd=abc", "pwd=[REDACTED]"},
      {"Password : hunter2", "Password : [REDACTED]"},
      {"token=abc123&user=bob", "token=[REDACTED]&user=bob"},
      {"GET /cb?token=abc123&user=bob HTTP/1.1", "GET /cb?token=[REDACTED]&user=bob HTTP/1.1"},
      {"secret: 's3cr3t'", "secret: '[REDACTED]'"},
      {"api_key=XYZ", "api_key=[REDACTED]"},
      {"apikey = XYZ;", "apikey = [REDACTED];"},
      {"ApiKey: XYZ", "ApiKey: [REDACTED]"},
      {"DB_PASSWORD=x", "DB_PASSWORD=[REDACTED]"},
      {"X-Auth-Token: abc", "X-Auth-Token: [REDACTED]"},
      {"(password=p1)", "(password=[REDACTED])"},
  });
}

TEST(RedactSecretsTest, RedactsQuotedValuesInJsonLikeText) {
  ExpectRedactions({
      {"{\"password\": \"x\"}", "{\"password\": \"[REDACTED]\"}"},
      {"{\"password\":\"p\\\"q\",\"user\":\"bob\"}",
       "{\"password\":\"[REDACTED]\",\"user\":\"bob\"}"},
      {"{\"access_token\": \"ya29.a0Af\", \"expires_in\": 3599}",
       "{\"access_token\": \"[REDACTED]\", \"expires_in\": 3599}"},
      {"{'secret': 'a b c'}", "{'secret': '[REDACTED]'}"},
      // JSON inside a JSON string.
      {"{\\\"token\\\": \\\"abc\\\"}", "{\\\"token\\\": \\\"[REDACTED]\\\"}"},
      {"password: `hunter2`", "password: `[REDACTED]`"},
  });
}

TEST(RedactSecretsTest, RedactsUnterminatedQuotedValueToTheEndOfTheLine) {
  ExpectRedactions({
      {"password=\"unterminated secret", "password=\"[REDACTED]"},
      {"password=\"unterminated\nnext line", "password=\"[REDACTED]\nnext line"},
  });
}

TEST(RedactSecretsTest, LeavesKeyWordsWithoutValuesAlone) {
  ExpectUnchanged({
      "",
      "Hello, world!\nExit code 0\n",
      "Enter your password",
      "password",
      "password:",
      "password:\nnext line",
      "password=",
      "password = ",
      "password=\"\"",
      "the token expired",
      "token",
      "max_tokens: 100",
      "if token == expected:",
      "lexer::token::kind",
      "secrets: none",
      "mypassword is long",
  });
}

TEST(RedactSecretsTest, RedactsEverySecretInOneText) {
  const std::string in =
      "user=bob password=p1 token=t2\n"
      "AKIAIOSFODNN7EXAMPLE Authorization: Bearer abcdefgh123 sk-0123456789abcdefXYZ\n"
      "aws_secret_access_key=" +
      kAwsSecret +
      "\n"
      "-----BEGIN RSA PRIVATE KEY-----\nAA\n-----END RSA PRIVATE KEY-----\n"
      "{\"api_key\": \"k\"} done";
  const std::string want =
      "user=bob password=[REDACTED] token=[REDACTED]\n"
      "[REDACTED] Authorization: Bearer [REDACTED] [REDACTED]\n"
      "aws_secret_access_key=[REDACTED]\n"
      "[REDACTED]\n"
      "{\"api_key\": \"[REDACTED]\"} done";
  EXPECT_EQ(RedactSecrets(in), want);
}

TEST(RedactSecretsTest, KeepsBytesThatAreNotSecretsIncludingNulAndNonAscii) {
  const std::string prefix("caf\xc3\xa9\0\xff token=", 14);
  // An unquoted value ends only at whitespace and punctuation, so "x\0y" goes.
  EXPECT_EQ(RedactSecrets(prefix + std::string("x\0y", 3)), prefix + "[REDACTED]");
  EXPECT_EQ(RedactSecrets(prefix), prefix);
}

// Inputs built to make a backtracking matcher go quadratic or worse. Each
// must come back correct; run at 1 MiB and 4 MiB so super-linear behaviour
// would blow the test timeout by orders of magnitude.
std::string Repeat(const std::string& unit, size_t total) {
  std::string s;
  s.reserve(total + unit.size());
  while (s.size() < total) s += unit;
  return s;
}

// Each input is 1 Mi units long: a quadratic scan of it would be some
// 10^12 steps, far past the test's timeout (a second size, 4 Mi, added
// most of a minute under the sanitizers and no power to tell).
TEST(RedactSecretsTest, StaysLinearOnAdversarialInputs) {
  for (size_t size : {size_t{1} << 20}) {
    SCOPED_TRACE(size);
    // Nothing to redact: returned unchanged.
    for (const std::string& unit :
         {std::string("-----BEGIN "), std::string("Bearer "),
          std::string("-----BEGIN PRIVATE KEY "), std::string("sk-abc "), std::string("AKIA"),
          std::string("password "), std::string("aws_secret_access_key="), std::string("a"),
          std::string("token:: ")}) {
      SCOPED_TRACE(unit);
      std::string in = Repeat(unit, size);
      EXPECT_EQ(RedactSecrets(in), in);
    }
    // One secret that runs to the end of the input.
    for (const auto& [unit, want] : std::vector<std::pair<std::string, std::string>>{
             {"-----BEGIN PRIVATE KEY-----\n", "[REDACTED]"},
             {"-----BEGIN RSA PRIVATE KEY-----BEGIN RSA PRIVATE KEY-----", "[REDACTED]"},
             {"sk-", "[REDACTED]"},
             {"password=", "password=[REDACTED]"},
         }) {
      SCOPED_TRACE(unit);
      EXPECT_EQ(RedactSecrets(Repeat(unit, size)), want);
    }
    {
      std::string in = "Bearer " + std::string(size, ' ') + "x";
      EXPECT_EQ(RedactSecrets(in), in);
    }
    {
      // Every pair has a value: the output is the keys and redactions.
      std::string in = Repeat("password: \"", size);
      std::string out = RedactSecrets(in);
      EXPECT_LT(out.size(), in.size() * 2);
      EXPECT_EQ(out.substr(0, 22), "password: \"[REDACTED]\"");
    }
  }
}

}  // namespace
}  // namespace coderunner::jobs
