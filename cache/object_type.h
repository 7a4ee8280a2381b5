// ObjectType: what kind of object a cache entry holds.
//
// The values are the `type` column of CVMFS's cachedb (doc/client.md, "The
// quota database") and must not change: a cachedb written by CVMFS is read by
// this code and vice versa.
#ifndef CACHE_OBJECT_TYPE_H_
#define CACHE_OBJECT_TYPE_H_

namespace cache {

enum class ObjectType { kRegular = 0, kCatalog = 1 };

}  // namespace cache

#endif  // CACHE_OBJECT_TYPE_H_
