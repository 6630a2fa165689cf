// The summary of a recorded capture read both ways: in one pass
// (`memframe report`'s and `memframe run`'s way, analysis/summary_load.h)
// and loaded whole as every other report is. They must print the same,
// text and JSON; the one pass must have been used.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "memframe/analysis/summary_load.h"
#include "memframe/report/report.h"

namespace memframe::e2e {

inline void ExpectTheSummaryTheSameBothWays(const std::string& capture) {
  for (bool json : {false, true}) {
    std::string printed[2];
    for (bool whole : {false, true}) {
      analysis::ReportRequest request{capture, "summary", {}, json};
      request.whole_load = whole;
      std::ostringstream out, err;
      EXPECT_EQ(analysis::RunReport(request, out, err), 0) << err.str();
      printed[whole] = out.str() + err.str();
    }
    EXPECT_EQ(printed[0], printed[1]) << (json ? "JSON" : "text");
  }
  analysis::Capture loaded;
  analysis::HeapAnalysis heap;
  std::string error;
  bool streamed = false;
  ASSERT_TRUE(analysis::LoadSummary(capture, &loaded, &heap, &error, {}, &streamed)) << error;
  EXPECT_TRUE(streamed) << "the capture was loaded whole: event_streaming.h's checks refused the one pass";
}

}  // namespace memframe::e2e
