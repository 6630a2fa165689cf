// The buffer swap / present entry points that end a frame, and the marker id
// each one is recorded under (FRAME_END.address; names sent in MarkerDefs).
#pragma once

#include <cstdint>

namespace memframe::agent {

struct PresentEntryPoint {
  uint32_t marker_id;
  const char* name;
};

enum PresentMarker : uint32_t {
  kMarkerGlfwSwapBuffers = 1,
  kMarkerGlxSwapBuffers = 2,
  kMarkerEglSwapBuffers = 3,
  kMarkerSdlGlSwapWindow = 4,
  kMarkerSdlGlSwapBuffers = 5,
};

// All entry points, for the writer's MarkerDefs.
const PresentEntryPoint* PresentEntryPoints(int* count);
const char* PresentEntryPointName(uint32_t marker_id);

}  // namespace memframe::agent
