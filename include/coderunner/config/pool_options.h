// PoolOptions: how many warm containers the pool keeps, and for how long.
#ifndef CODERUNNER_CONFIG_POOL_OPTIONS_H_
#define CODERUNNER_CONFIG_POOL_OPTIONS_H_

#include <cstdint>
#include <map>
#include <string>

namespace coderunner::config {

// Config keys pool.*.
struct PoolOptions {
  bool enabled = true;  // pool.enabled. Default true.
  // Idle containers kept per language (with the default limits) from the
  // start. Count; pool.size, default 2; pool.sizes.<language> overrides it.
  int size = 2;
  std::map<std::string, int> sizes;
  // Most idle containers of one shape (language, limits, runtime) when
  // demand raises its target. Count; pool.max_per_shape, default 6.
  int max_per_shape = 6;
  // Most idle (or being prepared) containers of all shapes together.
  // Count; pool.max_containers, default 16.
  int max_containers = 16;
  // Most shapes learned from jobs (beyond the configured ones) pooled at
  // once, dropped least recently used first. Count; pool.max_shapes,
  // default 8.
  int max_shapes = 8;
  // An idle container older than this is replaced by a fresh one. Seconds;
  // pool.max_idle_s, default 300.
  int64_t max_idle_s = 300;
  // Containers prepared at once. Count; pool.fill_parallelism, default 2.
  int fill_parallelism = 2;
  // How long an unused shape above its configured size keeps its raised
  // target, and how long a learned shape lives unused. Seconds;
  // pool.shape_idle_s, default 120.
  int64_t shape_idle_s = 120;
  // Container reuse (a tier's container_reuse): how long a container that
  // just served one of a tenant's jobs waits for that tenant's next job of
  // the same shape before it is removed. ms; pool.reuse_idle_ms, default
  // 2000. Such containers count toward max_containers.
  int64_t reuse_idle_ms = 2000;
  // The most jobs one container serves in a row. Count;
  // pool.reuse_max_jobs, default 500.
  int reuse_max_jobs = 500;
};

}  // namespace coderunner::config

#endif  // CODERUNNER_CONFIG_POOL_OPTIONS_H_
