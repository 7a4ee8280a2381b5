#include "client/inode_table.h"

namespace cvmfs::client {

void InodeTable::Remember(uint64_t inode, std::shared_ptr<const InodeInfo> info,
                          uint64_t n) {
  Shard& shard = ShardOf(inode);
  cvmfs::MutexLock lock(&shard.mu);
  auto [it, inserted] = shard.nodes.try_emplace(inode);
  if (inserted) it->second.info = std::move(info);
  it->second.nlookup += n;
}

void InodeTable::Forget(uint64_t inode, uint64_t n) {
  if (inode == kRootInode) return;
  Shard& shard = ShardOf(inode);
  cvmfs::MutexLock lock(&shard.mu);
  auto it = shard.nodes.find(inode);
  if (it == shard.nodes.end()) return;
  if (it->second.nlookup <= n) {
    shard.nodes.erase(it);
  } else {
    it->second.nlookup -= n;
  }
}

std::shared_ptr<const InodeInfo> InodeTable::Get(uint64_t inode) const {
  Shard& shard = ShardOf(inode);
  cvmfs::MutexLock lock(&shard.mu);
  auto it = shard.nodes.find(inode);
  if (it == shard.nodes.end()) return nullptr;
  return it->second.info;
}

void InodeTable::Replace(uint64_t inode,
                         std::shared_ptr<const InodeInfo> info) {
  Shard& shard = ShardOf(inode);
  cvmfs::MutexLock lock(&shard.mu);
  auto [it, inserted] = shard.nodes.try_emplace(inode);
  it->second.info = std::move(info);
  if (inserted) it->second.nlookup = 1;
}

std::vector<InodeTable::Known> InodeTable::Snapshot() const {
  std::vector<Known> out;
  for (Shard& shard : shards_) {
    cvmfs::MutexLock lock(&shard.mu);
    for (auto& [inode, node] : shard.nodes)
      out.push_back(Known{inode, node.info->parent, node.info->entry.name,
                          node.info->entry.IsDirectory()});
  }
  return out;
}

size_t InodeTable::size() const {
  size_t n = 0;
  for (Shard& shard : shards_) {
    cvmfs::MutexLock lock(&shard.mu);
    n += shard.nodes.size();
  }
  return n;
}

}  // namespace cvmfs::client
