// The PostgreSQL store's text helpers: conninfo redaction and the ?N -> $N
// placeholder conversion that lets both stores share their SQL; and the
// options every connection is opened with.
#include "store/postgres/pg_connection.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "pg/temp_postgres.h"

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

// A connection must not hang on a server that vanished over TCP: it is
// opened with keepalives and tcp_user_timeout (the connect timeout), which
// a configured conninfo may still override.
struct OptionCase {
  const char* name;
  const char* conninfo_extra;  // Appended to the test cluster's conninfo.
  int timeout_ms;
  const char* keyword;
  const char* want;
};

class PgConnectionOptionsTest : public ::testing::TestWithParam<OptionCase> {};

TEST_P(PgConnectionOptionsTest, AreInUse) {
  const OptionCase& c = GetParam();
  auto conn = PgConnection::Connect(testing::SharedPostgres().Conninfo() + c.conninfo_extra, "",
                                    c.timeout_ms);
  ASSERT_TRUE(conn.ok()) << conn.status().ToString();
  EXPECT_EQ((*conn)->Option(c.keyword), c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Defaults, PgConnectionOptionsTest,
    ::testing::Values(
        OptionCase{"Keepalives", "", 5000, "keepalives", "1"},
        OptionCase{"KeepalivesIdle", "", 5000, "keepalives_idle", "10"},
        OptionCase{"KeepalivesCount", "", 5000, "keepalives_count", "3"},
        OptionCase{"UserTimeoutIsTheConnectTimeout", "", 1500, "tcp_user_timeout", "1500"},
        OptionCase{"ConnectTimeoutInWholeSeconds", "", 1500, "connect_timeout", "2"},
        OptionCase{"ConninfoOverrides", " keepalives_idle=30", 5000, "keepalives_idle", "30"}),
    [](const ::testing::TestParamInfo<OptionCase>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace coderunner::store
