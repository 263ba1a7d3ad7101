// The PostgreSQL store's text helpers: conninfo redaction and the ?N -> $N
// placeholder conversion that lets both stores share their SQL.
#include "store/pg_connection.h"

#include <gtest/gtest.h>

#include <string>

namespace coderunner::store {
namespace {

struct TextCase {
  const char* name;
  const char* input;
  const char* want;
};

class RedactConninfoTest : public ::testing::TestWithParam<TextCase> {};

TEST_P(RedactConninfoTest, HidesOnlyThePassword) {
  EXPECT_EQ(RedactConninfo(GetParam().input), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Forms, RedactConninfoTest,
    ::testing::Values(
        TextCase{"NoPassword", "host=/run/pg dbname=coderunner", "host=/run/pg dbname=coderunner"},
        TextCase{"KeyValue", "host=db password=hunter2 dbname=x", "host=db password=*** dbname=x"},
        TextCase{"Last", "dbname=x password=hunter2", "dbname=x password=***"},
        TextCase{"SpacedEquals", "dbname=x password = hunter2 user=u",
                 "dbname=x password = *** user=u"},
        TextCase{"Quoted", "password='a b\\' c' host=db", "password=*** host=db"},
        TextCase{"PasswordLikeKey", "passwordx=1 user=password", "passwordx=1 user=password"},
        TextCase{"UriUserInfo", "postgresql://me:hunter2@db:5432/x",
                 "postgresql://me:***@db:5432/x"},
        TextCase{"UriUserOnly", "postgresql://me@db/x", "postgresql://me@db/x"},
        TextCase{"UriQuery", "postgres://db/x?sslmode=require&password=hunter2",
                 "postgres://db/x?sslmode=require&password=***"},
        TextCase{"UriQueryFirst", "postgresql://db/x?password=hunter2&user=me",
                 "postgresql://db/x?password=***&user=me"}),
    [](const ::testing::TestParamInfo<TextCase>& info) { return std::string(info.param.name); });

class PgPlaceholdersTest : public ::testing::TestWithParam<TextCase> {};

TEST_P(PgPlaceholdersTest, ConvertsOutsideQuotes) {
  EXPECT_EQ(PgPlaceholders(GetParam().input), GetParam().want);
}

INSTANTIATE_TEST_SUITE_P(
    Texts, PgPlaceholdersTest,
    ::testing::Values(
        TextCase{"None", "SELECT 1", "SELECT 1"},
        TextCase{"Simple", "SELECT a FROM t WHERE id = ?1", "SELECT a FROM t WHERE id = $1"},
        TextCase{"MultiDigit", "VALUES (?9, ?10, ?22)", "VALUES ($9, $10, $22)"},
        TextCase{"Reused", "?2 = '' OR tenant = ?2", "$2 = '' OR tenant = $2"},
        TextCase{"InLiteral", "SELECT '?1', ?1", "SELECT '?1', $1"},
        TextCase{"EscapedQuote", "SELECT 'it''s ?1', ?2", "SELECT 'it''s ?1', $2"},
        TextCase{"InIdentifier", "SELECT \"?1\" FROM t WHERE x = ?1",
                 "SELECT \"?1\" FROM t WHERE x = $1"},
        TextCase{"InComment", "SELECT ?1 -- not ?2\nFROM t", "SELECT $1 -- not ?2\nFROM t"},
        TextCase{"BareQuestionMark", "SELECT '{}'::jsonb ? 'k'", "SELECT '{}'::jsonb ? 'k'"}),
    [](const ::testing::TestParamInfo<TextCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace coderunner::store
