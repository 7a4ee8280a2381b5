// Bit values of the `flags` column of catalog rows (doc/format-catalog.md,
// "Flags"). These numbers are part of the on-disk format.
//
// clang-format off
//   bit  0  (1)       directory
//   bit  1  (2)       nested catalog mountpoint (in the parent catalog)
//   bit  2  (4)       "file": regular file, and also set for symlinks/specials
//   bit  3  (8)       symlink (stored 4|8 = 12)
//   bit  4  (16)      special file: fifo, socket, device (stored 4|16 = 20)
//   bit  5  (32)      nested catalog root (in the child catalog)
//   bit  6  (64)      chunked file
//   bit  7  (128)     external file
//   bits 8-10         content hash algorithm - 1 (0 SHA-1, 1 RMD160, 2 SHAKE128)
//   bits 11-13        compression (0 zlib, 1 none), regular files only
//   bit 14  (0x4000)  bind mountpoint
//   bit 15  (0x8000)  hidden
//   bit 16  (0x10000) open with direct I/O
// clang-format on
#ifndef CVMFS_CATALOG_FLAGS_H_
#define CVMFS_CATALOG_FLAGS_H_

#include <cstdint>

namespace cvmfs {

inline constexpr uint32_t kFlagDir = 1;
inline constexpr uint32_t kFlagNestedMountpoint = 2;
inline constexpr uint32_t kFlagFile = 4;
inline constexpr uint32_t kFlagLink = 8;
inline constexpr uint32_t kFlagSpecial = 16;
inline constexpr uint32_t kFlagNestedRoot = 32;
inline constexpr uint32_t kFlagChunked = 64;
inline constexpr uint32_t kFlagExternal = 128;
inline constexpr uint32_t kFlagBindMountpoint = 0x4000;
inline constexpr uint32_t kFlagHidden = 0x8000;
inline constexpr uint32_t kFlagDirectIo = 0x10000;

inline constexpr int kFlagPosHash = 8;
inline constexpr uint32_t kFlagHashMask = 7u << kFlagPosHash;
inline constexpr int kFlagPosCompression = 11;
inline constexpr uint32_t kFlagCompressionMask = 7u << kFlagPosCompression;

}  // namespace cvmfs

#endif  // CVMFS_CATALOG_FLAGS_H_
