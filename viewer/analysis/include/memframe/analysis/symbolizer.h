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

namespace memframe::analysis {

struct SourceFrame {
  uint64_t address = 0;  // the return address as captured
  std::string function;  // demangled; "module+0xoffset" or "0xaddress" when unknown
  std::string file;      // source path as the debug info names it; "" if unknown
  uint32_t line = 0;     // 0 if unknown
  std::string module;    // path of the module holding the address; "" if none
  uint64_t module_offset = 0;  // address - the module's load bias (stable across runs); 0 if no module
  bool inlined = false;  // a call inlined into the next frame
};

// "file.cpp:46" of a frame with a line, else "".
std::string LineLocation(const SourceFrame& frame);
// "libfoo.so+0x1234", where the frame is in its module (stable across runs);
// the address in hex for a frame outside every module.
std::string ModuleLocation(const SourceFrame& frame);

class Symbolizer {
 public:
  explicit Symbolizer(std::vector<Module> modules);
  ~Symbolizer();
  Symbolizer(const Symbolizer&) = delete;
  Symbolizer& operator=(const Symbolizer&) = delete;

  // The frames of one return address: the calls inlined at it first
  // (innermost first, inlined = true), then the function that holds it.
  // Never empty. Cached per address.
  const std::vector<SourceFrame>& Symbolize(uint64_t return_address);

  // A whole stack (innermost first), inlined frames expanded.
  std::vector<SourceFrame> SymbolizeStack(const std::vector<uint64_t>& return_addresses);

 private:
  struct ModuleDebug;
  ModuleDebug* ModuleFor(uint64_t address);
  std::vector<SourceFrame> Resolve(uint64_t return_address);

  std::vector<std::unique_ptr<ModuleDebug>> modules_;
  std::unordered_map<uint64_t, std::vector<SourceFrame>> cache_;
};

// True for the modules that allocate on a program's behalf: the memframe
// agent, the C and C++ runtimes, libgcc_s, libm, the dynamic loader, and the
// graphics stack (GL/EGL/Vulkan loaders, Mesa drivers, LLVM, X11/xcb).
bool IsRuntimeModule(const std::string& module_path);

// The frame a developer thinks of as "who allocated": the first frame
// outside the runtime modules that is not C++ standard library template code
// compiled into the program (std::, __gnu_cxx::, or a file under
// /usr/include/); else the first frame
// outside the runtime modules; else frame 0. Returns an index into `stack`,
// or stack.size() when the stack is empty.
size_t UserFrameIndex(const std::vector<SourceFrame>& stack);

}  // namespace memframe::analysis
