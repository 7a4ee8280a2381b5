#include "client/prefetch/prefetcher_report.h"

#include <cstdio>

namespace cvmfs::client {

namespace {

std::string Megabytes(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f MB", bytes / 1048576.0);
  return buf;
}

}  // namespace

std::vector<Counter> PrefetchCounterList(const PrefetchCounters& c) {
  return {
      {"prefetch.n_queued", c.queued, "objects queued for prefetch"},
      {"prefetch.n_fetched", c.fetched, "objects downloaded by prefetch"},
      {"prefetch.sz_fetched_bytes", c.fetched_bytes,
       "bytes of the objects prefetched"},
      {"prefetch.n_used", c.used, "prefetched objects a program then opened"},
      {"prefetch.sz_used_bytes", c.used_bytes, "bytes of those"},
      {"prefetch.sz_wasted_bytes", c.wasted_bytes,
       "bytes prefetched that nothing opened (yet)"},
      {"prefetch.n_cached", c.cached, "queued objects found in the cache"},
      {"prefetch.n_overtaken", c.overtaken,
       "queued objects a demand read fetched first"},
      {"prefetch.n_skipped_budget", c.skipped_budget,
       "objects not prefetched: over the budget"},
      {"prefetch.n_skipped_throttled", c.skipped_throttled,
       "objects not prefetched: cache nearly full, offline, or parallel "
       "readers"},
      {"prefetch.n_errors", c.errors, "prefetch downloads that failed"},
      {"prefetch.n_dirs_planned", c.directories_planned,
       "directories listed to plan prefetch"},
  };
}

std::string FormatPrefetchInfo(const PrefetchOptions& o,
                               const PrefetchCounters& c) {
  if (!c.enabled) return "Prefetch: off\n";
  std::string out = "Prefetch: on (" + std::to_string(o.parallel) +
                    " parallel, budget " + std::to_string(o.max_objects) +
                    " objects / " + Megabytes(o.max_bytes) + ")\n";
  std::string state = "running";
  if (c.paused)
    state = "paused (downloads failed: offline?)";
  else if (c.cache_full)
    state = "stopped (cache nearly full)";
  else if (c.parallel_readers)
    state = "held back (parallel readers keep a fast link busy)";
  else if (c.budget_bytes < o.max_bytes)
    state = "slow link, budget " + Megabytes(c.budget_bytes);
  out += "State: " + state + "\n";
  const auto ms = [](uint64_t us) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f ms", us / 1000.0);
    return std::string(buf);
  };
  std::string latency =
      c.round_trip_us == 0 ? "no round trip measured yet"
                           : "round trips take at least " + ms(c.round_trip_us);
  if (c.demand_misses == 0) latency += ", no cache miss yet";
  out += std::string("Speculation: ") + (c.speculating ? "on" : "off") + " (" +
         latency + "; threshold " + std::to_string(o.speculate_after.count()) +
         " ms)\n";
  out += "Queued " + std::to_string(c.queued) + " objects; fetched " +
         std::to_string(c.fetched) + " (" + Megabytes(c.fetched_bytes) +
         "), used " + std::to_string(c.used) + " (" + Megabytes(c.used_bytes) +
         "), wasted " + Megabytes(c.wasted_bytes) + "\n";
  out += "Cached already " + std::to_string(c.cached) +
         "; overtaken by demand reads " + std::to_string(c.overtaken) +
         "; skipped: " + std::to_string(c.skipped_budget) + " over budget, " +
         std::to_string(c.skipped_throttled) + " throttled; errors " +
         std::to_string(c.errors) + "\n";
  out +=
      "Now: " + std::to_string(c.pending) + " queued, " +
      std::to_string(c.in_flight) + " in flight, " +
      std::to_string(c.outstanding_objects) + " outstanding (" +
      Megabytes(c.outstanding_bytes) + "); rate " +
      (c.rate == 0 ? std::string("not measured") : Megabytes(c.rate) + "/s") +
      "\n";
  return out;
}

}  // namespace cvmfs::client
