#include "render.h"

#ifdef _WIN32
#include <windows.h>  // GL/gl.h wants WINGDIAPI and APIENTRY (the Windows demo, demo_game_windows/)
#endif
#include <GL/gl.h>

namespace memframe::demo {
namespace {

void FillRect(float x, float y, float width, float height) {
  glBegin(GL_QUADS);
  glVertex2f(x, y);
  glVertex2f(x + width, y);
  glVertex2f(x + width, y + height);
  glVertex2f(x, y + height);
  glEnd();
}

void Clear(float red, float green, float blue) {
  glClearColor(red, green, blue, 1.0f);
  glClear(GL_COLOR_BUFFER_BIT);
}

// No font: each visible character becomes a small block, so the HUD string
// is really consumed by the renderer.
void DrawTextBlocks(std::string_view text, float x, float y) {
  for (char character : text) {
    if (character != ' ') FillRect(x, y, 6.0f, 10.0f);
    x += 8.0f;
  }
}

}  // namespace

void SetUpProjection() {
  glViewport(0, 0, kWindowWidth, kWindowHeight);
  glMatrixMode(GL_PROJECTION);
  glLoadIdentity();
  glOrtho(0.0, kWindowWidth, kWindowHeight, 0.0, -1.0, 1.0);
  glMatrixMode(GL_MODELVIEW);
  glLoadIdentity();
}

void DrawTitleScreen(int title_frame) {
  Clear(0.05f, 0.05f, 0.15f);
  // A bar that grows across the title screen, like a "press start" pulse.
  const float progress = static_cast<float>(title_frame + 1) / static_cast<float>(kTitleFrames);
  glColor3f(0.9f, 0.8f, 0.2f);
  FillRect(120.0f, 150.0f, 400.0f * progress, 60.0f);
}

void DrawLoadingScreen() {
  Clear(0.0f, 0.0f, 0.0f);
  glColor3f(0.6f, 0.6f, 0.6f);
  FillRect(270.0f, 170.0f, 100.0f, 20.0f);
}

void DrawGameplay(const Entities& entities, std::string_view hud_text) {
  Clear(0.1f, 0.3f, 0.1f);

  glColor3f(0.2f, 0.4f, 0.9f);  // player
  FillRect(40.0f, 170.0f, 20.0f, 30.0f);

  glColor3f(1.0f, 0.5f, 0.1f);
  for (const Projectile* projectile : entities.projectiles) {
    if (projectile == nullptr) continue;
    FillRect(projectile->x - projectile->radius, projectile->y - projectile->radius,
             2.0f * projectile->radius, 2.0f * projectile->radius);
  }

  glColor3f(1.0f, 0.2f, 0.2f);
  for (const DamageLabel* label : entities.labels) {
    if (label != nullptr) DrawTextBlocks(label->text, label->x, label->y);
  }

  glColor3f(1.0f, 1.0f, 1.0f);
  DrawTextBlocks(hud_text, 8.0f, 8.0f);
}

void DrawUnloadScreen() { Clear(0.0f, 0.0f, 0.0f); }

}  // namespace memframe::demo
