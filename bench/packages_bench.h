// service_bench's "packages" section (issue 36): what a job pays for a
// package from the operator's mirror, cached and installed the first time.
#ifndef CODERUNNER_BENCH_PACKAGES_BENCH_H_
#define CODERUNNER_BENCH_PACKAGES_BENCH_H_

#include <httplib.h>

namespace bench {

// Against `service` configured with make_python_mirror.py's index (bench/
// run.sh does it): `jobs` runs each, interleaved, of python print(1+1)
// without packages and of `import crtiny; print(1+1)` with
// "crtiny==1.1" installed already; then first installs of the same
// package, each spelled differently so that pip runs every time. Prints
// p50 p95 p99 and the ratios to the job without packages (issue 36: the
// cached one at most 1.2x, a first install at most 10x).
void PackagesCost(httplib::Client& service, int jobs);

}  // namespace bench

#endif  // CODERUNNER_BENCH_PACKAGES_BENCH_H_
