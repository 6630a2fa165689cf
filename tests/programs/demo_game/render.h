// Drawing with legacy OpenGL (immediate mode, no shaders): enough to make
// the driver do real work every frame without any allocation in the game's
// own code. Every function expects the window's context to be current.
#pragma once

#include <string_view>

#include "entities.h"

namespace memframe::demo {

inline constexpr int kWindowWidth = 640;
inline constexpr int kWindowHeight = 360;

// Sets a pixel-space projection: (0, 0) is the top-left corner.
void SetUpProjection();

void DrawTitleScreen(int title_frame);
void DrawLoadingScreen();
void DrawGameplay(const Entities& entities, std::string_view hud_text);
void DrawUnloadScreen();

}  // namespace memframe::demo
