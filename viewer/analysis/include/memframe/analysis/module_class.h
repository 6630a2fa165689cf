// Who allocated: every module of a capture is in one class, so that a
// game's own allocations stand apart from its graphics driver's and the
// system libraries'. One rule table decides (first match wins): the user's
// rules, then the main executable (game), then the known driver and system
// libraries by name, then the libraries the system's package manager
// installs in the system library folders (system, but for the engines and
// middleware it packages), then libraries shipped beside the executable
// (game); every other library is engine or middleware.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

enum class ModuleClass : uint8_t { kGame, kEngine, kDriver, kSystem };
constexpr int kModuleClassCount = 4;

// "game", "engine", "driver", "system".
const char* ModuleClassName(ModuleClass c);
// The classes in display order.
const std::vector<ModuleClass>& AllModuleClasses();
bool ParseModuleClass(const std::string& name, ModuleClass* out);

struct ModuleClassRule {
  // A glob (fnmatch: *, ?, [...]) matched against the module's file name,
  // or against its whole path when the pattern holds a '/' (a Windows path
  // is matched with '/' for '\\').
  std::string pattern;
  ModuleClass module_class = ModuleClass::kEngine;
  // Windows' names have no case (KERNEL32.DLL); Linux's do: libGL is the
  // driver's, libglib and libglfw are not.
  bool fold_case = false;
};

// "PATTERN=CLASS", as --module-class takes it. False with *error otherwise.
bool ParseModuleClassRule(const std::string& text, ModuleClassRule* out, std::string* error);

class ModuleClassifier {
 public:
  // `executable`: the main program's path ("" when unknown: then only the
  // user's rules name game modules). `user_rules` come first.
  explicit ModuleClassifier(std::string executable = "", std::vector<ModuleClassRule> user_rules = {});

  // The class of a module by its path; "" (an address outside every
  // module, e.g. JIT code) is engine.
  ModuleClass Classify(const std::string& module_path) const;
  const std::vector<ModuleClassRule>& user_rules() const { return user_rules_; }
  const std::string& executable() const { return executable_; }

 private:
  std::string executable_;
  std::string executable_dir_;  // with a trailing '/'
  std::string executable_name_;
  std::vector<ModuleClassRule> user_rules_;
};

// The classifier of a recorded process: its executable (the first module
// of its map when the executable's path names no module) and the user's
// rules.
ModuleClassifier ClassifierFor(const Stream& stream, std::vector<ModuleClassRule> user_rules = {});

// The built-in table of driver and system libraries (after the user rules
// and the main executable; REPORTS.md lists it).
const std::vector<ModuleClassRule>& DefaultModuleClassRules();

// Whether `path` (with '/') lies in a folder the system's package manager
// installs shared libraries in: /lib, /usr/lib, their lib64 and lib32 and
// multiarch (x86_64-linux-gnu) folders and the folders below them, but for
// a game's own folder there (a "games" folder, or one named
// `executable_name`, as Debian ships a game's private libraries).
bool InSystemLibraryFolder(const std::string& path, const std::string& executable_name);

// The engines and middleware a distribution packages (Ogre, Irrlicht,
// Bullet, Lua, ...): engine even in the system library folders.
const std::vector<std::string>& PackagedEnginePatterns();

// Which classes a report or view keeps: --only game,driver / --hide driver.
struct ClassFilter {
  uint8_t kept = 0xF;  // bit per ModuleClass
  bool Keeps(ModuleClass c) const { return kept & (1u << static_cast<int>(c)); }
  bool KeepsAll() const { return (kept & 0xF) == 0xF; }
  void Set(ModuleClass c, bool keep) {
    const uint8_t bit = static_cast<uint8_t>(1u << static_cast<int>(c));
    kept = keep ? (kept | bit) : (kept & ~bit);
  }
  // "game, driver" of the kept classes, for headers.
  std::string Describe() const;
};

// Applies "--only LIST" (keep = true) or "--hide LIST" to *filter; LIST is
// comma-separated class names. False with *error on an unknown name.
bool ApplyClassList(const std::string& list, bool keep, ClassFilter* filter, std::string* error);

// The memframe agent (never shown in a stack) and the C/C++ runtime that
// every allocation passes through (libc, libstdc++, libgcc_s, libm, the
// dynamic loader): skipped when looking for the module that allocated.
bool IsMemframeModule(const std::string& module_path);
bool IsRuntimeModule(const std::string& module_path);

// Allocations and bytes per class.
struct ModuleClassTotals {
  uint64_t allocations[kModuleClassCount] = {};
  uint64_t bytes[kModuleClassCount] = {};
  uint64_t all_allocations() const;
  uint64_t all_bytes() const;
};

}  // namespace memframe::analysis
