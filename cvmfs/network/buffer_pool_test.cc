#include "cvmfs/network/buffer_pool.h"

#include <gtest/gtest.h>

#include <string>

namespace cvmfs {
namespace {

TEST(BufferPoolTest, BuffersComeBackWithTheirMemory) {
  BufferPool pool(4096, 2);
  std::string a = pool.Take();
  EXPECT_TRUE(a.empty());
  EXPECT_GE(a.capacity(), 4096u);
  a.assign(3000, 'x');
  const char* memory = a.data();
  pool.Give(std::move(a));
  EXPECT_EQ(1u, pool.idle());
  std::string b = pool.Take();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(memory, b.data()) << "the same memory, not a new allocation";
  EXPECT_EQ(0u, pool.idle());
}

TEST(BufferPoolTest, KeepsAtMostMaxIdleAndOnlyItsOwnSize) {
  BufferPool pool(4096, 2);
  for (int i = 0; i < 3; ++i) pool.Give(pool.Take());
  EXPECT_EQ(1u, pool.idle());  // each Take got the one given back
  std::string x = pool.Take(), y = pool.Take(), z = pool.Take();
  pool.Give(std::move(x));
  pool.Give(std::move(y));
  pool.Give(std::move(z));
  EXPECT_EQ(2u, pool.idle());
  pool.Give(std::string("small"));  // not one of ours
  EXPECT_EQ(2u, pool.idle());
  std::string huge;
  huge.reserve(3 * 4096);  // grew far beyond: not kept
  BufferPool other(4096, 8);
  other.Give(std::move(huge));
  other.Give(std::string());
  EXPECT_EQ(0u, other.idle());
}

}  // namespace
}  // namespace cvmfs
