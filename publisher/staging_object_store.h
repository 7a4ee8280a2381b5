// StagingObjectStore: the store a publish through the gateway builds on
// (doc/gateway.md, "Publisher machines"). Writes go into a local staging
// directory (a LocalObjectStore), whose objects are then sent to the gateway
// in object packs; reads look there first, then in the repository as
// served (`upstream`, an HttpObjectStore).
//
// Exists() answers for the staging directory only: every object a publish
// stores is staged and sent, even one the repository already has (the
// gateway skips those), so that nothing the new catalogs reference can be
// missing on the gateway's side. As CVMFS's publisher does.
//
// Thread-safe (both stores are).
#ifndef PUBLISHER_STAGING_OBJECT_STORE_H_
#define PUBLISHER_STAGING_OBJECT_STORE_H_

#include <string>
#include <vector>

#include "cvmfs/object_store.h"

namespace publisher {

class StagingObjectStore : public cvmfs::ObjectStore {
 public:
  // `upstream` is borrowed and outlives this store; `staging_dir` must
  // exist (CreateLayout() makes data/00..ff in it).
  StagingObjectStore(cvmfs::ObjectStore* upstream, std::string staging_dir)
      : upstream_(upstream), staging_(std::move(staging_dir)) {}
  cvmfs::Status CreateLayout() { return staging_.CreateLayout(); }

  bool Exists(const std::string& name) override {
    return staging_.Exists(name);
  }
  cvmfs::Status Put(const std::string& name, std::string_view bytes) override {
    return staging_.Put(name, bytes);
  }
  cvmfs::Result<bool> PutIfAbsent(const std::string& name,
                                  std::string_view bytes) override {
    return staging_.PutIfAbsent(name, bytes);
  }
  cvmfs::Result<std::string> Get(const std::string& name) override;
  cvmfs::Result<uint64_t> Size(const std::string& name) override;
  cvmfs::Status Remove(const std::string& name) override {
    return staging_.Remove(name);
  }
  // The staged objects: what the publish stored.
  cvmfs::Result<std::vector<std::string>> ListObjects() override {
    return staging_.ListObjects();
  }

 private:
  cvmfs::ObjectStore* upstream_;
  cvmfs::LocalObjectStore staging_;
};

}  // namespace publisher

#endif  // PUBLISHER_STAGING_OBJECT_STORE_H_
