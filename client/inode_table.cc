#include "client/inode_table.h"

namespace cvmfs::client {

namespace {

// Heap bytes of a string beyond the object (none while it fits inline).
size_t HeapOf(const std::string& s) {
  return s.capacity() > 15 ? s.capacity() + 1 : 0;
}

}  // namespace

size_t InodeCharge(const InodeInfo& info) {
  // The map node, the LRU list node and the shared_ptr control block, each
  // with malloc's header, besides the InodeInfo itself.
  constexpr size_t kOverhead = 48 + 32 + 32;
  size_t bytes = kOverhead + sizeof(InodeInfo) + HeapOf(info.path) +
                 HeapOf(info.entry.name) + HeapOf(info.entry.symlink);
  for (const auto& [key, value] : info.entry.xattrs.entries)
    bytes += sizeof(key) + sizeof(value) + HeapOf(key) + HeapOf(value);
  return bytes;
}

void InodeTable::Remember(uint64_t inode, std::shared_ptr<const InodeInfo> info,
                          uint64_t n) {
  std::vector<std::shared_ptr<const InodeInfo>> dropped;
  Shard& shard = ShardOf(inode);
  cvmfs::MutexLock lock(&shard.mu);
  auto [it, inserted] = shard.nodes.try_emplace(inode);
  Node& node = it->second;
  if (inserted) {
    // The root is always there: it takes no room from the others.
    node.charge = inode == kRootInode ? 0 : InodeCharge(*info);
    node.info = std::move(info);
    shard.lru.push_front(inode);
    node.lru = shard.lru.begin();
    shard.bytes += node.charge;
  } else {
    shard.lru.splice(shard.lru.begin(), shard.lru, node.lru);
  }
  node.nlookup += n;
  if (inserted) Trim(&shard, &dropped);
}

void InodeTable::Trim(Shard* shard,
                      std::vector<std::shared_ptr<const InodeInfo>>* dropped) {
  if (max_bytes_ == 0) return;
  const size_t budget = max_bytes_ / kShards;
  while (shard->bytes > budget && shard->nodes.size() > 1) {
    uint64_t victim = shard->lru.back();
    if (victim == kRootInode) {
      shard->lru.splice(shard->lru.begin(), shard->lru,
                        std::prev(shard->lru.end()));
      continue;
    }
    auto it = shard->nodes.find(victim);
    shard->bytes -= it->second.charge;
    dropped->push_back(std::move(it->second.info));
    shard->lru.pop_back();
    shard->nodes.erase(it);
    ++shard->evictions;
  }
}

void InodeTable::Forget(uint64_t inode, uint64_t n) {
  if (inode == kRootInode) return;
  std::shared_ptr<const InodeInfo> dropped;  // released after the lock
  Shard& shard = ShardOf(inode);
  cvmfs::MutexLock lock(&shard.mu);
  auto it = shard.nodes.find(inode);
  if (it == shard.nodes.end()) return;
  if (it->second.nlookup <= n) {
    dropped = std::move(it->second.info);
    shard.bytes -= it->second.charge;
    shard.lru.erase(it->second.lru);
    shard.nodes.erase(it);
  } else {
    it->second.nlookup -= n;
  }
}

std::shared_ptr<const InodeInfo> InodeTable::Get(uint64_t inode) {
  Shard& shard = ShardOf(inode);
  cvmfs::MutexLock lock(&shard.mu);
  auto it = shard.nodes.find(inode);
  if (it == shard.nodes.end()) return nullptr;
  shard.lru.splice(shard.lru.begin(), shard.lru, it->second.lru);
  return it->second.info;
}

void InodeTable::Replace(uint64_t inode,
                         std::shared_ptr<const InodeInfo> info) {
  std::shared_ptr<const InodeInfo> old;  // released after the lock
  Shard& shard = ShardOf(inode);
  cvmfs::MutexLock lock(&shard.mu);
  auto [it, inserted] = shard.nodes.try_emplace(inode);
  Node& node = it->second;
  if (inserted) {
    shard.lru.push_front(inode);
    node.lru = shard.lru.begin();
    node.nlookup = 1;
  }
  shard.bytes -= node.charge;
  node.charge = inode == kRootInode ? 0 : InodeCharge(*info);
  shard.bytes += node.charge;
  old = std::move(node.info);
  node.info = std::move(info);
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

size_t InodeTable::bytes() const {
  size_t n = 0;
  for (Shard& shard : shards_) {
    cvmfs::MutexLock lock(&shard.mu);
    n += shard.bytes;
  }
  return n;
}

uint64_t InodeTable::evictions() const {
  uint64_t n = 0;
  for (Shard& shard : shards_) {
    cvmfs::MutexLock lock(&shard.mu);
    n += shard.evictions;
  }
  return n;
}

}  // namespace cvmfs::client
