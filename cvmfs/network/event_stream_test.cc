#include "cvmfs/network/event_stream.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cvmfs {
namespace {

TEST(EventStreamParserTest, EventsSplitAnywhere) {
  const std::string stream =
      ": comment\ndata: {\"a\":1}\n\nevent: x\r\ndata:two\r\ndata: lines\r\n"
      "\r\n{\"status\":\"timeout\"}";
  for (size_t step = 1; step <= stream.size(); ++step) {
    EventStreamParser parser;
    std::vector<std::string> events;
    for (size_t i = 0; i < stream.size(); i += step)
      ASSERT_TRUE(parser.Feed(stream.substr(i, step), &events).ok());
    ASSERT_EQ(events.size(), 2u) << "step " << step;
    EXPECT_EQ(events[0], "{\"a\":1}");
    EXPECT_EQ(events[1], "two\nlines");
  }
}

TEST(EventStreamParserTest, NoEventBeforeItsBlankLine) {
  EventStreamParser parser;
  std::vector<std::string> events;
  ASSERT_TRUE(parser.Feed("data: x\n", &events).ok());
  EXPECT_TRUE(events.empty());
  ASSERT_TRUE(parser.Feed("\n\n\n", &events).ok());
  EXPECT_EQ(events, std::vector<std::string>{"x"});
}

TEST(EventStreamParserTest, EndlessLineIsAnError) {
  EventStreamParser parser;
  std::vector<std::string> events;
  const std::string chunk(64 * 1024, 'a');
  Status st;
  for (int i = 0; i < 20 && st.ok(); ++i) st = parser.Feed(chunk, &events);
  EXPECT_FALSE(st.ok());
}

}  // namespace
}  // namespace cvmfs
