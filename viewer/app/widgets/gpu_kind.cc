#include "widgets/gpu_kind.h"

namespace memframe::viewer {

// Apart from the module classes' green, blue, orange and grey, which share
// the live graph with them.
ImVec4 GpuKindColour(analysis::GpuKind kind) {
  switch (kind) {
    case analysis::GpuKind::kTexture: return ImVec4(0.70f, 0.45f, 0.95f, 1);
    case analysis::GpuKind::kBuffer: return ImVec4(0.25f, 0.80f, 0.80f, 1);
    case analysis::GpuKind::kRenderbuffer: return ImVec4(0.95f, 0.45f, 0.65f, 1);
    case analysis::GpuKind::kVkMemory: return ImVec4(0.90f, 0.80f, 0.30f, 1);
    case analysis::GpuKind::kVkBuffer:
    case analysis::GpuKind::kVkImage: return ImVec4(0.75f, 0.70f, 0.45f, 1);
    case analysis::GpuKind::kNone: break;
  }
  return ImVec4(0.6f, 0.6f, 0.6f, 1);
}

}  // namespace memframe::viewer
