// Access: why an object is opened or stored in the cache.
//
//   kUse          a reader wants it (a demand read, a catalog load): the
//                 object becomes the most recently used one and, if it was
//                 stored speculatively, an ordinary one.
//   kSpeculative  the client only guesses it will be wanted (prefetch):
//                 stored "volatile" (evicted before every used object, as
//                 CVMFS's InsertVolatile), and opening it again only holds
//                 it open: not a use, no change to the LRU order.
//
// So prefetched data that nothing read goes first when the quota is full,
// and stays first across restarts (the flag is bit 63 of cachedb's acseq).
#ifndef CACHE_ACCESS_H_
#define CACHE_ACCESS_H_

namespace cache {

enum class Access { kUse, kSpeculative };

}  // namespace cache

#endif  // CACHE_ACCESS_H_
