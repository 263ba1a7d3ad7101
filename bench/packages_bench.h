// service_bench's "packages" section (issue 36): what a job pays for a
// package from the operator's mirror, cached and installed the first time.
#ifndef CODERUNNER_BENCH_PACKAGES_BENCH_H_
#define CODERUNNER_BENCH_PACKAGES_BENCH_H_

#include <httplib.h>

namespace bench {

// Against `service` configured with make_python_mirror.py's index and
// npm_mirror.py's registry (bench/run.sh does it), for each ecosystem:
// `jobs` runs each, interleaved, of print(1+1) without packages (python;
// javascript) and with one small package installed already (crtiny 1.1;
// crleft 1.1.0), loading it; then first installs of the same package,
// each spelled differently so that pip or npm runs every time. Prints p50
// p95 p99 and the ratios to the job without packages (issue 36: the cached
// one at most 1.2x, a first install at most 10x).
void PackagesCost(httplib::Client& service, int jobs);

}  // namespace bench

#endif  // CODERUNNER_BENCH_PACKAGES_BENCH_H_
