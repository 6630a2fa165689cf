#include "memframe/analysis/module_class.h"

#include <fnmatch.h>

#include <cstring>

#include "memframe/paths.h"

namespace memframe::analysis {

namespace {

// `path` with '/' for '\\': a Windows capture's paths are Windows paths
// wherever Wine cannot give a Unix one (every path on Windows itself), and
// rules are written with '/'.
std::string SlashPath(std::string path) {
  for (char& c : path) {
    if (c == '\\') c = '/';
  }
  return path;
}

// `path` is a SlashPath.
bool Matches(const ModuleClassRule& rule, const std::string& path, const std::string& name) {
  const bool whole_path = rule.pattern.find('/') != std::string::npos;
  return fnmatch(rule.pattern.c_str(), (whole_path ? path : name).c_str(), rule.fold_case ? FNM_CASEFOLD : 0) == 0;
}

bool IsAbsolute(const std::string& path) {
  return (!path.empty() && path[0] == '/') || (path.size() > 2 && path[1] == ':' && path[2] == '/');
}

// The folder whose files and subfolders ship with the game: the
// executable's own, or its parent when the executable sits in a "bin"
// folder (game/bin/game beside game/lib/libengine.so), unless that parent
// is a system prefix, where "below" would take in every library.
// `executable` is a SlashPath.
std::string GameRoot(const std::string& executable) {
  size_t slash = executable.rfind('/');
  if (!IsAbsolute(executable) || slash == std::string::npos) return "";
  std::string dir = executable.substr(0, slash + 1);
  if (dir.size() > 5 && dir.compare(dir.size() - 5, 5, "/bin/") == 0) {
    std::string parent = dir.substr(0, dir.size() - 4);
    if (parent != "/" && parent != "/usr/" && parent != "/usr/local/") dir = parent;
  }
  // Nothing is "beside" a program at the top of the system folders.
  for (const char* top : {"/", "/usr/", "/usr/bin/", "/usr/local/", "/usr/local/bin/", "/bin/", "/opt/", "/tmp/"}) {
    if (dir == top) return "";
  }
  return dir;
}

}  // namespace

const char* ModuleClassName(ModuleClass c) {
  switch (c) {
    case ModuleClass::kGame: return "game";
    case ModuleClass::kEngine: return "engine";
    case ModuleClass::kDriver: return "driver";
    case ModuleClass::kSystem: return "system";
  }
  return "engine";
}

const std::vector<ModuleClass>& AllModuleClasses() {
  static const std::vector<ModuleClass> all = {ModuleClass::kGame, ModuleClass::kEngine, ModuleClass::kDriver,
                                               ModuleClass::kSystem};
  return all;
}

bool ParseModuleClass(const std::string& name, ModuleClass* out) {
  for (ModuleClass c : AllModuleClasses()) {
    if (name == ModuleClassName(c)) {
      *out = c;
      return true;
    }
  }
  if (name == "middleware") {
    *out = ModuleClass::kEngine;
    return true;
  }
  return false;
}

bool ParseModuleClassRule(const std::string& text, ModuleClassRule* out, std::string* error) {
  size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0) {
    *error = "--module-class wants PATTERN=CLASS (e.g. 'libfmod*=engine'), not '" + text + "'";
    return false;
  }
  ModuleClassRule rule;
  rule.pattern = text.substr(0, eq);
  if (!ParseModuleClass(text.substr(eq + 1), &rule.module_class)) {
    *error = "--module-class: unknown class '" + text.substr(eq + 1) + "' (classes: game, engine, driver, system)";
    return false;
  }
  *out = std::move(rule);
  return true;
}

const std::vector<ModuleClassRule>& DefaultModuleClassRules() {
  using C = ModuleClass;
  static const std::vector<ModuleClassRule> rules = [] {
    std::vector<ModuleClassRule> r;
    // Graphics drivers, their loaders and what only they load. Linux names
    // have case: libGL.so is the driver's, libglib and libglfw are not, nor
    // is a font library named libGLC.
    for (const char* p : {"libGL.so*", "libGLX*", "libGLESv1_CM*", "libGLESv2*", "libGLdispatch*", "libGLU*",
                          "libGLEW*", "libEGL*", "libOpenGL*", "*_dri.so*", "libvulkan*", "liblvp*", "*lavapipe*",
                          "*radv*", "libnvidia-*", "libcuda*", "libLLVM*", "libgallium*", "libglapi*", "libdrm*",
                          "libgbm*", "libxshmfence*", "libz3*", "libclang-cpp*", "libLLVMSPIRV*", "libSPIRV*",
                          "libwayland-egl*", "libamdgpu*", "libigc*", "libigdgmm*", "libMesa*", "libVkLayer*"})
      r.push_back({p, C::kDriver});
    // Windows: the graphics APIs' DLLs, Wine's drivers (winex11.drv, wined3d,
    // winevulkan) and the vendors' user-mode drivers.
    for (const char* p : {"opengl32.dll", "d3d*.dll", "dxgi.dll", "dxcore.dll", "wined3d.dll", "vulkan-1.dll",
                          "winevulkan.dll", "*.drv", "nvoglv*.dll", "nvwgf2um*.dll", "nvd3dum*.dll", "amdvlk*.dll",
                          "atio*.dll", "atiu*.dll", "amdxc*.dll", "ig*icd*.dll", "igd*umd*.dll"})
      r.push_back({p, C::kDriver, true});
    // The C/C++ runtime and the libraries a Linux desktop provides.
    for (const char* p :
         {"libc.so*",       "libc-*",         "libm.so*",      "libm-*",        "libstdc++*",     "libgcc_s*",
          "ld-linux*",      "ld-*.so*",       "libpthread*",   "libdl.so*",     "librt.so*",      "libatomic*",
          "libgomp*",       "libmemframe*",   "linux-vdso*",   "[vdso]",        "libX*",          "libxcb*",
          "libxkb*",        "libwayland-*",   "libdecor*",     "libSDL*",       "libglfw*",       "libasound*",
          "libpulse*",      "libpipewire*",   "libjack*",      "libsndio*",     "libopenal*",     "libdbus*",
          "libsystemd*",    "libudev*",       "libz.so*",      "libzstd*",      "liblzma*",       "libbz2*",
          "liblz4*",        "libbrotli*",     "libpng*",        "libjpeg*",     "libwebp*",       "libtiff*",
          "libgif*",        "libfreetype*",   "libfontconfig*", "libharfbuzz*", "libgraphite2*",  "libexpat*",
          "libogg*",        "libvorbis*",     "libopus*",      "libFLAC*",      "libsndfile*",    "libmpg123*",
          "libsamplerate*", "libglib-*",      "libgobject-*",  "libgio-*",      "libgmodule-*",   "libffi*",
          "libpcre*",       "libselinux*",    "libmount*",     "libblkid*",     "libuuid*",       "libcap*",
          "libgcrypt*",     "libgpg-error*",  "libbsd*",       "libmd.so*",     "libelf*",        "libsensors*",
          "libtinfo*",      "libncurses*",    "libedit*",      "libxml2*",      "libicu*",        "libssl*",
          "libcrypto*",     "libcurl*",       "libnss*",       "libresolv*",    "libasyncns*",    "libapparmor*",
          "libwrap*",       "libunwind*",     "libdw*",        "libintl*"})
      r.push_back({p, C::kSystem});
    // The Windows agent, wherever it lies (beside the game, often).
    r.push_back({"memframe_agent.dll", C::kSystem, true});
    // Windows' C/C++ runtimes, which games ship beside them, and Windows
    // itself: its folder, Wine's in a prefix (drive_c, or dosdevices/c: as
    // Wine names the modules' files) and the folders Wine's own DLLs are
    // installed in. A path is matched with '/' for '\\'.
    for (const char* p : {"ucrtbase*.dll", "msvcrt*.dll", "msvcp*.dll", "msvcr*.dll", "vcruntime*.dll",
                          "concrt*.dll", "api-ms-win-*", "libwinpthread*", "libc++.dll", "libunwind.dll",
                          "?:/windows/*", "*/drive_c/windows/*", "*/dosdevices/?:/windows/*", "*/lib/wine/*",
                          "*/lib64/wine/*", "*/lib32/wine/*", "*/lib/*-linux-gnu/wine/*"})
      r.push_back({p, C::kSystem, true});
    return r;
  }();
  return rules;
}

const std::vector<std::string>& PackagedEnginePatterns() {
  static const std::vector<std::string> patterns = {
      "libOgre*",  "libIrrlicht*", "libCEGUI*",   "libosg*",   "libOpenThreads*", "libBullet*", "libLinearMath*",
      "libBox2D*", "libbox2d*",    "libode.so*",  "libchipmunk*", "liblua*",       "libluajit*", "libraylib*",
      "libpanda*", "libp3*",       "libfmod*"};
  return patterns;
}

bool InSystemLibraryFolder(const std::string& path, const std::string& executable_name) {
  static const char* const kTops[] = {"/lib/", "/lib64/", "/lib32/", "/usr/lib/", "/usr/lib64/", "/usr/lib32/"};
  for (const char* top : kTops) {
    const size_t top_length = strlen(top);
    if (path.compare(0, top_length, top) != 0) continue;
    // Every folder between the top and the file: none may be a game's own.
    for (size_t start = top_length, slash; (slash = path.find('/', start)) != std::string::npos; start = slash + 1) {
      const std::string folder = path.substr(start, slash - start);
      if (folder == "games" || (!executable_name.empty() && folder == executable_name)) return false;
    }
    return true;
  }
  return false;
}

ModuleClassifier::ModuleClassifier(std::string executable, std::vector<ModuleClassRule> user_rules)
    : executable_(std::move(executable)),
      executable_dir_(GameRoot(SlashPath(executable_))),
      executable_name_(Basename(SlashPath(executable_))),
      user_rules_(std::move(user_rules)) {}

ModuleClassifier ClassifierFor(const Stream& stream, std::vector<ModuleClassRule> user_rules) {
  // The process's own module is the first of its map: that is its path when
  // the executable's path names no module (a symlink, an older agent).
  std::string executable = stream.process.executable;
  bool mapped = false;
  for (const Module& m : stream.modules) mapped = mapped || m.path == executable;
  if (!mapped && !stream.modules.empty()) executable = stream.modules.front().path;
  return ModuleClassifier(std::move(executable), std::move(user_rules));
}

ModuleClass ModuleClassifier::Classify(const std::string& module_path) const {
  const std::string name = Basename(module_path);
  const std::string path = SlashPath(module_path);
  for (const ModuleClassRule& rule : user_rules_) {
    if (Matches(rule, path, name)) return rule.module_class;
  }
  if (module_path.empty()) return ModuleClass::kEngine;
  if (!executable_.empty() && module_path == executable_) return ModuleClass::kGame;
  for (const ModuleClassRule& rule : DefaultModuleClassRules()) {
    if (Matches(rule, path, name)) return rule.module_class;
  }
  if (InSystemLibraryFolder(path, executable_name_)) {
    for (const std::string& engine : PackagedEnginePatterns())
      if (fnmatch(engine.c_str(), name.c_str(), 0) == 0) return ModuleClass::kEngine;
    return ModuleClass::kSystem;
  }
  if (!executable_dir_.empty() && path.compare(0, executable_dir_.size(), executable_dir_) == 0)
    return ModuleClass::kGame;
  return ModuleClass::kEngine;
}

std::string ClassFilter::Describe() const {
  std::string out;
  for (ModuleClass c : AllModuleClasses()) {
    if (Keeps(c)) out += (out.empty() ? "" : ", ") + std::string(ModuleClassName(c));
  }
  return out.empty() ? "none" : out;
}

bool ApplyClassList(const std::string& list, bool keep, ClassFilter* filter, std::string* error) {
  ClassFilter named;
  named.kept = 0;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    ModuleClass c;
    if (!ParseModuleClass(name, &c)) {
      *error = std::string(keep ? "--only" : "--hide") + ": unknown class '" + name +
               "' (classes: game, engine, driver, system)";
      return false;
    }
    named.Set(c, true);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  // --only narrows what is kept; --hide removes from it.
  filter->kept = keep ? (filter->kept & named.kept) : (filter->kept & ~named.kept & 0xF);
  return true;
}

bool IsMemframeModule(const std::string& module_path) {
  const std::string name = Basename(module_path);
  return name.rfind("libmemframe_agent", 0) == 0 || name == "memframe_agent.dll";
}

bool IsRuntimeModule(const std::string& module_path) {
  const std::string name = Basename(module_path);
  auto starts = [&](const char* prefix) { return name.rfind(prefix, 0) == 0; };
  return IsMemframeModule(module_path) || starts("libc.so") || starts("libc-2.") || starts("libstdc++.so") ||
         starts("libgcc_s") || starts("ld-linux") || starts("libm.so") || starts("libm-2.");
}

namespace {

uint64_t Sum(const uint64_t (&values)[kModuleClassCount]) {
  uint64_t sum = 0;
  for (uint64_t v : values) sum += v;
  return sum;
}

}  // namespace

uint64_t ModuleClassTotals::all_allocations() const { return Sum(allocations); }

uint64_t ModuleClassTotals::all_bytes() const { return Sum(bytes); }

}  // namespace memframe::analysis
