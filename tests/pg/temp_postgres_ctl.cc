// temp_postgres_ctl start|stop DIR: the ctest fixture "pg". start makes a
// cluster in DIR (emptied first) and leaves it running; stop stops it and
// removes DIR. Exit status 0 on success, 1 on failure (reason on stderr),
// 2 on bad usage.
#include <cstdio>
#include <memory>
#include <string>

#include "pg/temp_postgres.h"

int main(int argc, char** argv) {
  using coderunner::testing::TempPostgres;
  const std::string verb = argc == 3 ? argv[1] : "";
  if (verb != "start" && verb != "stop") {
    std::fprintf(stderr, "usage: temp_postgres_ctl start|stop DIR\n");
    return 2;
  }
  coderunner::Status status;
  if (verb == "start") {
    auto pg = TempPostgres::Create(argv[2]);
    status = pg.status();
  } else {
    auto pg = TempPostgres::Attach(argv[2]);
    status = pg.ok() ? (*pg)->Remove() : pg.status();
  }
  if (!status.ok()) {
    std::fprintf(stderr, "temp_postgres_ctl %s: %s\n", verb.c_str(), status.message().c_str());
    return 1;
  }
  return 0;
}
