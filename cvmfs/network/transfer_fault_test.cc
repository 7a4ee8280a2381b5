#include "cvmfs/network/transfer_fault.h"

#include <gtest/gtest.h>

namespace cvmfs {
namespace {

using F = TransferFault;

TEST(TransferFaultTest, CurlErrorsBlameProxyOnlyWhenOneIsUsed) {
  for (CURLcode c : {CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT,
                     CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_GOT_NOTHING}) {
    EXPECT_EQ(ClassifyCurlCode(c, /*direct=*/true), F::kHostTransfer) << c;
    EXPECT_EQ(ClassifyCurlCode(c, /*direct=*/false), F::kProxyTransfer) << c;
  }
  EXPECT_EQ(ClassifyCurlCode(CURLE_OK, false), F::kNone);
  EXPECT_EQ(ClassifyCurlCode(CURLE_COULDNT_RESOLVE_PROXY, false),
            F::kProxyHttp);
  EXPECT_EQ(ClassifyCurlCode(CURLE_COULDNT_RESOLVE_HOST, true), F::kHostHttp);
  EXPECT_EQ(ClassifyCurlCode(CURLE_URL_MALFORMAT, true), F::kOther);
}

TEST(TransferFaultTest, HttpStatus) {
  EXPECT_EQ(ClassifyHttpStatus(404, false, false), F::kNotFound);
  EXPECT_EQ(ClassifyHttpStatus(404, true, false), F::kNotFound);
  EXPECT_EQ(ClassifyHttpStatus(503, false, false), F::kHostHttp);
  EXPECT_EQ(ClassifyHttpStatus(503, true, false), F::kProxyHttp);
  EXPECT_EQ(ClassifyHttpStatus(503, true, true), F::kHostHttp);
  EXPECT_EQ(ClassifyHttpStatus(400, false, false), F::kHostHttp);
  EXPECT_EQ(ClassifyHttpStatus(302, false, false), F::kHostHttp);
  EXPECT_EQ(ClassifyHttpStatus(429, false, false), F::kHostTransfer);
  EXPECT_EQ(ClassifyHttpStatus(403, false, false), F::kProxyHttp);
  EXPECT_EQ(ClassifyHttpStatus(403, false, true), F::kHostHttp);
  EXPECT_TRUE(IsRetryable(F::kHostTransfer));
  EXPECT_FALSE(IsRetryable(F::kHostHttp));
}

}  // namespace
}  // namespace cvmfs
