// The prefetch engine's counters as cvmfs_talk shows them: one line per
// counter in `internal affairs` (CVMFS's "Name|Value|Description" layout),
// and the `prefetch info` text. Pure functions over plain values.
#ifndef CLIENT_PREFETCH_PREFETCHER_REPORT_H_
#define CLIENT_PREFETCH_PREFETCHER_REPORT_H_

#include <string>
#include <vector>

#include "client/prefetch/prefetcher.h"
#include "client/talk/talk_reports.h"

namespace cvmfs::client {

// prefetch.n_queued, prefetch.n_fetched, prefetch.sz_fetched_bytes, ...
std::vector<Counter> PrefetchCounterList(const PrefetchCounters& c);

// Prefetch: on (64 parallel, budget 4096 objects / 32.0 MB)
// State: running | paused (offline) | cache nearly full
// Queued 2078 objects; fetched 1990 (41.2 MB), used 1985 (41.0 MB),
// wasted 0.2 MB; cached already 88; overtaken by demand reads 3;
// skipped: 0 over budget, 0 throttled; errors 0
// Now: 0 queued, 0 in flight, 5 outstanding (0.1 MB); rate 12.3 MB/s
std::string FormatPrefetchInfo(const PrefetchOptions& o,
                               const PrefetchCounters& c);

}  // namespace cvmfs::client

#endif  // CLIENT_PREFETCH_PREFETCHER_REPORT_H_
