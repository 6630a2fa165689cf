// Who allocated: module classes (module_class.h) and the frames that name a
// site (site_origin.h).
#include "memframe/analysis/site_origin.h"

#include <gtest/gtest.h>

#include "memframe/analysis/look_alikes.h"

namespace memframe::analysis {
namespace {

SourceFrame Frame(const std::string& function, const std::string& module,
                  ModuleClass c = ModuleClass::kEngine, const std::string& file = "", uint32_t line = 0) {
  SourceFrame f;
  f.function = function;
  f.module = module;
  f.module_class = c;
  f.file = file;
  f.line = line;
  return f;
}

TEST(ModuleClass, DefaultRules) {
  ModuleClassifier classes("/opt/game/bin/game");
  EXPECT_EQ(classes.Classify("/opt/game/bin/game"), ModuleClass::kGame);
  // Shipped beside it: the executable's folder, or its parent's past "bin".
  EXPECT_EQ(classes.Classify("/opt/game/lib/libcore.so"), ModuleClass::kGame);
  EXPECT_EQ(classes.Classify("/opt/game/bin/plugins/libai.so"), ModuleClass::kGame);
  EXPECT_EQ(classes.Classify("/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so"), ModuleClass::kDriver);
  EXPECT_EQ(classes.Classify("/usr/lib/x86_64-linux-gnu/libGLX_mesa.so.0"), ModuleClass::kDriver);
  EXPECT_EQ(classes.Classify("/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so"), ModuleClass::kDriver);
  EXPECT_EQ(classes.Classify("/usr/lib/x86_64-linux-gnu/libnvidia-glcore.so.535"), ModuleClass::kDriver);
  EXPECT_EQ(classes.Classify("/usr/lib/x86_64-linux-gnu/libLLVM-15.so.1"), ModuleClass::kDriver);
  EXPECT_EQ(classes.Classify("/lib/x86_64-linux-gnu/libc.so.6"), ModuleClass::kSystem);
  EXPECT_EQ(classes.Classify("/usr/lib/x86_64-linux-gnu/libSDL2-2.0.so.0"), ModuleClass::kSystem);
  EXPECT_EQ(classes.Classify("/usr/lib/x86_64-linux-gnu/libxcb.so.1"), ModuleClass::kSystem);
  // A known name shipped with the game is still what its name says.
  EXPECT_EQ(classes.Classify("/opt/game/lib/libSDL2-2.0.so.0"), ModuleClass::kSystem);
  EXPECT_EQ(classes.Classify(""), ModuleClass::kEngine);
  // Nothing is "beside" a program in /usr/games or /usr/bin but itself.
  ModuleClassifier system_game("/usr/games/neverball");
  EXPECT_EQ(system_game.Classify("/usr/games/neverball"), ModuleClass::kGame);
  EXPECT_EQ(system_game.Classify("/usr/lib/x86_64-linux-gnu/libpng16.so.16"), ModuleClass::kSystem);
  EXPECT_EQ(ModuleClassifier("/usr/bin/game").Classify("/usr/bin/other"), ModuleClass::kEngine);
  // The Windows agent, often installed beside the game, is never the game's.
  EXPECT_EQ(ModuleClassifier("/opt/game/game.exe").Classify("/opt/game/memframe_agent.dll"), ModuleClass::kSystem);
}

// Linux names have case: the driver's libGL, libGLX and libGLdispatch, not
// libglib, libglfw or a font library named libGLC.
TEST(ModuleClass, DriverNamesHaveCase) {
  ModuleClassifier classes("/usr/games/chromium-bsu");
  for (const char* lib : {"libGL.so.1", "libGLX.so.0", "libGLX_mesa.so.0", "libGLESv2.so.2", "libGLdispatch.so.0",
                          "libGLU.so.1", "libGLEW.so.2.2", "libEGL.so.1", "libOpenGL.so.0", "libglapi.so.0"})
    EXPECT_EQ(classes.Classify(std::string("/lib/x86_64-linux-gnu/") + lib), ModuleClass::kDriver) << lib;
  for (const char* lib : {"libglib-2.0.so.0", "libglfw.so.3", "libGLC.so.0", "libgl2ps.so.1.4"})
    EXPECT_EQ(classes.Classify(std::string("/lib/x86_64-linux-gnu/") + lib), ModuleClass::kSystem) << lib;
}

// What the system's package manager installs in the system library folders
// is system (the libraries SDL and GL games load: fonts, text shaping,
// archives, codecs, TLS), but for the engines and middleware it packages;
// a game's own folder there, and what ships beside the game, are not.
TEST(ModuleClass, PackagedLibrariesAreSystem) {
  ModuleClassifier classes("/usr/games/supertux2");
  for (const char* lib : {"libfribidi.so.0", "libraqm.so.0", "libphysfs.so.1", "libgnutls.so.30", "libtasn1.so.6",
                          "libSDL2_image-2.0.so.0", "libSDL2_mixer-2.0.so.0", "libSDL2_ttf-2.0.so.0",
                          "libmodplug.so.1", "libopenal.so.1", "libvorbisfile.so.3", "libpng16.so.16",
                          "libcurl-gnutls.so.4", "libboost_filesystem.so.1.74.0", "libnettle.so.8", "libhogweed.so.6",
                          "libgmp.so.10", "libp11-kit.so.0", "libidn2.so.0", "libunistring.so.2",
                          "libsfml-graphics.so.2.5"}) {
    EXPECT_EQ(classes.Classify(std::string("/lib/x86_64-linux-gnu/") + lib), ModuleClass::kSystem) << lib;
    EXPECT_EQ(classes.Classify(std::string("/usr/lib/x86_64-linux-gnu/") + lib), ModuleClass::kSystem) << lib;
  }
  EXPECT_EQ(classes.Classify("/usr/lib/libphysfs.so.1"), ModuleClass::kSystem);
  EXPECT_EQ(classes.Classify("/usr/lib64/libfribidi.so.0"), ModuleClass::kSystem);
  EXPECT_EQ(classes.Classify("/usr/lib/x86_64-linux-gnu/gdk-pixbuf-2.0/2.10.0/loaders/libpixbufloader-png.so"),
            ModuleClass::kSystem);
  // Engines and middleware, even when packaged.
  for (const char* lib : {"libOgreMain.so.1.12", "libIrrlicht.so.1.8", "libBulletDynamics.so.3.24", "libLinearMath.so.3.24",
                          "libBox2D.so.2.4", "libode.so.8", "liblua5.4.so.0", "libluajit-5.1.so.2", "libosg.so.161",
                          "libCEGUIBase-0.so.5"})
    EXPECT_EQ(classes.Classify(std::string("/usr/lib/x86_64-linux-gnu/") + lib), ModuleClass::kEngine) << lib;
  // A game's own folder among the system's: Debian's /usr/lib/games/GAME,
  // or a folder named as the game.
  EXPECT_EQ(classes.Classify("/usr/lib/games/supertux2/libsquirrel.so"), ModuleClass::kEngine);
  EXPECT_EQ(classes.Classify("/usr/lib/x86_64-linux-gnu/supertux2/libsquirrel.so"), ModuleClass::kEngine);
  EXPECT_EQ(ModuleClassifier("/usr/lib/games/supertux2/supertux2").Classify("/usr/lib/games/supertux2/libsquirrel.so"),
            ModuleClass::kGame);
  // Not the package manager's: /usr/local, /opt, a game's own folder.
  EXPECT_EQ(classes.Classify("/usr/local/lib/libfribidi.so.0"), ModuleClass::kEngine);
  EXPECT_EQ(classes.Classify("/opt/middleware/lib/libfribidi.so.0"), ModuleClass::kEngine);
  ModuleClassifier shipped("/opt/game/bin/game");
  EXPECT_EQ(shipped.Classify("/opt/game/lib/libengine.so"), ModuleClass::kGame);
  EXPECT_EQ(shipped.Classify("/opt/game/lib/libOgreMain.so.1.12"), ModuleClass::kGame);
}

// Wine's own DLLs are Windows' and its graphics drivers, not the game's,
// though the prefix may lie below the game's folder (the tests' does); so
// are Windows' own and the C++ runtimes a game ships beside it.
TEST(ModuleClass, WindowsModules) {
  const std::string build = "/work/build/windows/";
  ModuleClassifier wine(build + "bin/memframe_demo_game.exe");
  EXPECT_EQ(wine.Classify(build + "bin/memframe_demo_game.exe"), ModuleClass::kGame);
  EXPECT_EQ(wine.Classify(build + "bin/engine.dll"), ModuleClass::kGame);
  EXPECT_EQ(wine.Classify(build + "bin/libstdc++-6.dll"), ModuleClass::kSystem);
  EXPECT_EQ(wine.Classify(build + "bin/libwinpthread-1.dll"), ModuleClass::kSystem);
  for (const char* dll : {"ntdll.dll", "kernelbase.dll", "ucrtbase.dll", "user32.dll", "imm32.dll"}) {
    EXPECT_EQ(wine.Classify(build + "wineprefix/dosdevices/c:/windows/system32/" + dll), ModuleClass::kSystem) << dll;
    EXPECT_EQ(wine.Classify(build + "wineprefix/drive_c/windows/system32/" + dll), ModuleClass::kSystem) << dll;
    EXPECT_EQ(wine.Classify(std::string("/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/") + dll), ModuleClass::kSystem)
        << dll;
  }
  for (const char* dll : {"opengl32.dll", "winex11.drv", "wined3d.dll", "d3d11.dll", "dxgi.dll", "winevulkan.dll"})
    EXPECT_EQ(wine.Classify(build + "wineprefix/dosdevices/c:/windows/system32/" + dll), ModuleClass::kDriver) << dll;
  // On Windows: Windows paths, names in any case.
  ModuleClassifier windows("C:\\Games\\Shooter\\bin\\shooter.exe");
  EXPECT_EQ(windows.Classify("C:\\Games\\Shooter\\bin\\shooter.exe"), ModuleClass::kGame);
  EXPECT_EQ(windows.Classify("C:\\Games\\Shooter\\engine\\physics.dll"), ModuleClass::kGame);
  EXPECT_EQ(windows.Classify("C:\\WINDOWS\\System32\\KERNEL32.DLL"), ModuleClass::kSystem);
  EXPECT_EQ(windows.Classify("C:\\Games\\Shooter\\bin\\VCRUNTIME140.dll"), ModuleClass::kSystem);
  EXPECT_EQ(windows.Classify("C:\\WINDOWS\\System32\\nvoglv64.dll"), ModuleClass::kDriver);
  EXPECT_EQ(windows.Classify("C:\\Program Files\\Middleware\\fmod.dll"), ModuleClass::kEngine);
}

TEST(ModuleClass, UserRulesComeFirst) {
  ModuleClassRule rule;
  std::string error;
  ASSERT_TRUE(ParseModuleClassRule("swrast_dri.so=engine", &rule, &error));
  ModuleClassRule path_rule;
  ASSERT_TRUE(ParseModuleClassRule("/opt/game/*=system", &path_rule, &error));
  ModuleClassifier classes("/opt/game/game", {rule, path_rule});
  EXPECT_EQ(classes.Classify("/usr/lib/dri/swrast_dri.so"), ModuleClass::kEngine);
  EXPECT_EQ(classes.Classify("/opt/game/game"), ModuleClass::kSystem);
  EXPECT_FALSE(ParseModuleClassRule("libfoo.so", &rule, &error));
  EXPECT_NE(error.find("PATTERN=CLASS"), std::string::npos);
  EXPECT_FALSE(ParseModuleClassRule("libfoo.so=gpu", &rule, &error));
  EXPECT_NE(error.find("unknown class 'gpu'"), std::string::npos);
}

TEST(ModuleClass, OnlyAndHide) {
  ClassFilter filter;
  std::string error;
  EXPECT_TRUE(filter.KeepsAll());
  ASSERT_TRUE(ApplyClassList("game,driver", true, &filter, &error));
  EXPECT_EQ(filter.Describe(), "game, driver");
  ASSERT_TRUE(ApplyClassList("driver", false, &filter, &error));
  EXPECT_EQ(filter.Describe(), "game");
  EXPECT_FALSE(ApplyClassList("game,,driver", true, &filter, &error));
  EXPECT_FALSE(ApplyClassList("gpu", false, &filter, &error));
  EXPECT_NE(error.find("--hide: unknown class 'gpu'"), std::string::npos);
}

TEST(SiteOrigin, DriverUnderGameIsNamedAfterBoth) {
  std::vector<SourceFrame> stack = {
      Frame("malloc", "/opt/memframe/lib/libmemframe_agent.so", ModuleClass::kSystem),
      Frame("ralloc_size", "/usr/lib/dri/swrast_dri.so", ModuleClass::kDriver),
      Frame("glDrawArrays", "/usr/lib/libGLX_mesa.so.0", ModuleClass::kDriver),
      Frame("Game::DrawGameplay(Entities const&) const", "/opt/game/game", ModuleClass::kGame, "/src/render.cpp", 62),
      Frame("main", "/opt/game/game", ModuleClass::kGame, "/src/main.cpp", 10),
  };
  SiteOrigin o = FindSiteOrigin(stack);
  EXPECT_EQ(o.alloc, 1u);
  EXPECT_EQ(o.game, 3u);
  EXPECT_EQ(o.user, 3u);
  EXPECT_EQ(o.module_class, ModuleClass::kDriver);
  EXPECT_EQ(o.module, "swrast_dri.so");
  EXPECT_EQ(SiteName(stack, o), "swrast_dri.so (via Game::DrawGameplay render.cpp:62)");
  EXPECT_TRUE(OriginSettled(stack, o));
  // Without the game's frames the driver frame names it.
  stack.resize(3);
  o = FindSiteOrigin(stack);
  EXPECT_EQ(o.user, 1u);
  EXPECT_EQ(SiteName(stack, o), "ralloc_size");
  EXPECT_FALSE(OriginSettled(stack, o));
}

TEST(SiteOrigin, GameCodeThroughTheStandardLibrary) {
  std::vector<SourceFrame> stack = {
      Frame("operator new(unsigned long)", "/usr/lib/libstdc++.so.6", ModuleClass::kSystem),
      Frame("void std::vector<int, std::allocator<int> >::_M_realloc_insert<int>(int&&)", "/opt/game",
            ModuleClass::kGame),
      Frame("(anonymous namespace)::Spawn(Game&)", "/opt/game", ModuleClass::kGame),
      Frame("main", "/opt/game", ModuleClass::kGame),
  };
  SiteOrigin o = FindSiteOrigin(stack);
  EXPECT_EQ(o.user, 2u);
  EXPECT_EQ(o.module_class, ModuleClass::kGame);
  EXPECT_EQ(SiteName(stack, o), "(anonymous namespace)::Spawn(Game&)");
  stack.resize(2);  // only library code in the program
  EXPECT_EQ(UserFrameIndex(stack), 1u);
  stack.resize(1);  // only runtime frames
  o = FindSiteOrigin(stack);
  EXPECT_EQ(o.user, 0u);
  EXPECT_EQ(o.module_class, ModuleClass::kSystem);
  EXPECT_EQ(UserFrameIndex({}), 0u);
  EXPECT_EQ(SiteName({}, FindSiteOrigin({})), "");
}

TEST(SiteOrigin, SystemLibraryUnderAnonymousNamespace) {
  std::vector<SourceFrame> stack = {
      Frame("_XReply", "/usr/lib/libX11.so.6", ModuleClass::kSystem),
      Frame("demo::(anonymous namespace)::Clear(float)", "/opt/game", ModuleClass::kGame, "/src/render.cpp", 19),
  };
  EXPECT_EQ(SiteName(stack, FindSiteOrigin(stack)), "libX11.so.6 (via demo::(anonymous namespace)::Clear render.cpp:19)");
}

TEST(SiteOrigin, RuntimeModules) {
  EXPECT_TRUE(IsRuntimeModule("/lib/x86_64-linux-gnu/libc.so.6"));
  EXPECT_TRUE(IsRuntimeModule("/lib64/ld-linux-x86-64.so.2"));
  EXPECT_TRUE(IsRuntimeModule("/lib/x86_64-linux-gnu/libgcc_s.so.1"));
  EXPECT_TRUE(IsRuntimeModule("/lib/x86_64-linux-gnu/libm.so.6"));
  EXPECT_TRUE(IsRuntimeModule("/opt/memframe/lib/libmemframe_agent.so"));
  EXPECT_TRUE(IsRuntimeModule("/opt/game/memframe_agent.dll"));
  EXPECT_TRUE(IsMemframeModule("/opt/game/memframe_agent.dll"));
  // The graphics stack allocates on its own account now (module classes).
  EXPECT_FALSE(IsRuntimeModule("/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so"));
  EXPECT_FALSE(IsRuntimeModule("/usr/lib/x86_64-linux-gnu/libxcb.so.1"));
  EXPECT_FALSE(IsRuntimeModule("/opt/game/libcore.so"));
  EXPECT_FALSE(IsRuntimeModule(""));
}

TEST(CutFromLeft, KeepsTheLineNumber) {
  EXPECT_EQ(CutFromLeft("game.cpp:139", 12), "game.cpp:139");
  EXPECT_EQ(CutFromLeft("game.cpp:139", 11), "....cpp:139");
  EXPECT_EQ(CutFromLeft("game.cpp:139", 7), "...:139");
  // Never half a UTF-8 character.
  EXPECT_EQ(CutFromLeft("\xC3\xA9t\xC3\xA9.cpp:9", 10), "....cpp:9");
}

}  // namespace
}  // namespace memframe::analysis
