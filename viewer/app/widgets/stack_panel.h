// The whole symbolized stack of a call site, innermost first, with
// file:line; the frame the tables name (the user frame) is highlighted and
// runtime frames (libc, libstdc++, the agent) are dimmed.
#pragma once

#include <cstdint>

#include "session.h"
#include "style.h"

namespace memframe::viewer {

void DrawStackPanel(Session& session, uint32_t stack_id, const Fonts& fonts);

}  // namespace memframe::viewer
