// Return addresses -> functions, files and lines, with libdw.
//
// Modules come from the capture (every ModuleMap ever sent), so a library
// that was dlclose'd before the end still symbolizes. Files are only opened
// for reading; a file that is gone or was rebuilt since the capture (its
// build id differs) gives "module+0xoffset" names instead of wrong ones.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/module_class.h"

namespace memframe::analysis {

struct SourceFrame {
  uint64_t address = 0;  // the return address as captured
  std::string function;  // demangled; "module+0xoffset" or "0xaddress" when unknown
  std::string file;      // source path as the debug info names it; "" if unknown
  uint32_t line = 0;     // 0 if unknown
  std::string module;    // path of the module holding the address; "" if none
  uint64_t module_offset = 0;  // address - the module's load bias (stable across runs); 0 if no module
  bool inlined = false;  // a call inlined into the next frame
  ModuleClass module_class = ModuleClass::kEngine;  // of `module` (module_class.h)
};

// "file.cpp:46" of a frame with a line, else "".
std::string LineLocation(const SourceFrame& frame);
// "libfoo.so+0x1234", where the frame is in its module (stable across runs);
// the address in hex for a frame outside every module.
std::string ModuleLocation(const SourceFrame& frame);

class Symbolizer {
 public:
  // `classes` stamps each frame's module_class.
  explicit Symbolizer(std::vector<Module> modules, ModuleClassifier classes = ModuleClassifier());
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // The frames of one return address: the calls inlined at it first
  // (innermost first, inlined = true), then the function that holds it.
  // Never empty. Cached per address.
  const std::vector<SourceFrame>& Symbolize(uint64_t return_address);

  // A whole stack (innermost first), inlined frames expanded, without
  // memframe's own frames (the agent's hooks are no part of the program).
  std::vector<SourceFrame> SymbolizeStack(const std::vector<uint64_t>& return_addresses);

  // New rules (the viewer's editor): re-stamps every frame symbolized so far.
  void SetModuleClasses(ModuleClassifier classes);
  const ModuleClassifier& module_classes() const { return classes_; }

 private:
  struct ModuleDebug;
  ModuleDebug* ModuleFor(uint64_t address);
  std::vector<SourceFrame> Resolve(uint64_t return_address);

  std::vector<std::unique_ptr<ModuleDebug>> modules_;
  std::unordered_map<uint64_t, std::vector<SourceFrame>> cache_;
  ModuleClassifier classes_;
};

}  // namespace memframe::analysis
