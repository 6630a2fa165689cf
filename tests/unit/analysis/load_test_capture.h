// Writes a synthetic capture to a temporary file and loads it back, as the
// CLI and the viewer would; a failure to write or load fails the test.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "memframe/analysis/capture_loader.h"
#include "test_capture.h"

namespace memframe::testing {

inline analysis::Capture LoadTestCapture(const TestCapture& tc, const std::string& name) {
  TempPath file(name);
  EXPECT_TRUE(tc.Write(file.path()));
  analysis::Capture capture;
  std::string error;
  EXPECT_TRUE(analysis::LoadCapture(file.path(), &capture, &error)) << error;
  return capture;
}

}  // namespace memframe::testing
