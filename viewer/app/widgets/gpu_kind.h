// The colour of each GPU object kind (gpu_event.h), shared by the live
// graph's GPU band and the GPU tab.
#pragma once

#include <imgui.h>

#include "memframe/analysis/gpu_event.h"

namespace memframe::viewer {

ImVec4 GpuKindColour(analysis::GpuKind kind);

}  // namespace memframe::viewer
