#include "memframe/analysis/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "debug_files.h"
#include "pe_symbols.h"
#include "memframe/paths.h"
#include "memframe/regular_file.h"
#include "memframe/hex.h"

namespace memframe::analysis {

namespace {

char* g_debuginfo_path = nullptr;  // libdw's default search path (/usr/lib/debug, .debug beside the file)

// Not libdwfl's standard callbacks: they open() paths a capture chose
// (debug_files.h).
const Dwfl_Callbacks kOfflineCallbacks = {
    FindNoElf,
    FindDebugFile,
    dwfl_offline_section_address,
    &g_debuginfo_path,
};

std::string Demangle(const char* name) {
  if (!name) return "";
  if (name[0] == '_' && name[1] == 'Z') {
    int status = 0;
    char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status == 0 && demangled) {
      std::string out = demangled;
      free(demangled);
      return out;
    }
  }
  return name;
}

// The name of a subprogram or inlined subroutine DIE, demangled with its
// parameters when a linkage name is known (following abstract origins).
std::string DieName(Dwarf_Die* die) {
  Dwarf_Attribute attr;
  const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
  if (!linkage) linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
  if (linkage) return Demangle(linkage);
  const char* name = dwarf_diename(die);
  return name ? name : "";
}

}  // namespace

// A module's function symbols sorted by address. dwfl_module_addrinfo scans
// the whole symbol table on every call, which made symbolizing the few
// thousand distinct addresses of a game capture take seconds (Mesa's driver
// alone has tens of thousands of symbols); one sort per module and a binary
// search per address instead.
class SortedSymbols {
 public:
  void Build(Dwfl_Module* m) {
    int count = dwfl_module_getsymtab(m);
    for (int i = 1; i < count; ++i) {
      GElf_Sym sym;
      GElf_Addr address = 0;
      const char* name = dwfl_module_getsym_info(m, i, &sym, &address, nullptr, nullptr, nullptr);
      if (!name || !*name || address == 0) continue;
      int type = GELF_ST_TYPE(sym.st_info);
      if (type != STT_FUNC && type != STT_GNU_IFUNC && type != STT_NOTYPE) continue;  // NOTYPE: assembly labels such as _dl_start_user
      entries_.push_back({address, sym.st_size, GELF_ST_BIND(sym.st_info) != STB_LOCAL, name});
    }
    // By address; at equal addresses the global, then the sized one first
    // (aliases: prefer the name a debugger would show).
    std::stable_sort(entries_.begin(), entries_.end(), [](const Entry& a, const Entry& b) {
      if (a.address != b.address) return a.address < b.address;
      if (a.global != b.global) return a.global;
      return a.size > b.size;
    });
  }

  // The function containing pc, or null.
  const char* Find(uint64_t pc) const {
    auto it = std::upper_bound(entries_.begin(), entries_.end(), pc,
                               [](uint64_t value, const Entry& e) { return value < e.address; });
    if (it == entries_.begin()) return nullptr;
    uint64_t address = std::prev(it)->address;
    // First entry at that address (the preferred alias).
    auto first = std::lower_bound(entries_.begin(), it, address,
                                  [](const Entry& e, uint64_t value) { return e.address < value; });
    if (first->size != 0 && pc >= first->address + first->size) return nullptr;
    return first->name;
  }

 private:
  struct Entry {
    uint64_t address;
    uint64_t size;
    bool global;       // global or weak binding: the exported name of an alias set
    const char* name;  // owned by libelf, valid while the Dwfl lives
  };
  std::vector<Entry> entries_;
};

// A module's compilation units by address range, for the modules whose
// DWARF has no .debug_aranges: clang writes none unless told to
// (-gdwarf-aranges), and libdw's own lookup (dwfl_module_addrdie, and
// dwfl_module_getsrc through it) then finds no unit, so a game built with
// clang had names but no file:line. Built once, from each unit's ranges.
class UnitRanges {
 public:
  // The unit containing pc (a module address), or null.
  Dwarf_Die* Find(Dwfl_Module* m, Dwarf_Addr pc, Dwarf_Addr* bias) {
    if (!built_) Build(m);
    *bias = bias_;
    auto it = std::upper_bound(ranges_.begin(), ranges_.end(), pc - bias_,
                               [](Dwarf_Addr value, const Range& r) { return value < r.start; });
    // Ranges of different units do not overlap; a short look back covers
    // units whose ranges nest in odd compilers' output.
    for (int back = 0; back < 4 && it != ranges_.begin(); ++back) {
      --it;
      if (pc - bias_ >= it->start && pc - bias_ < it->end) return &units_[it->unit];
    }
    return nullptr;
  }

 private:
  struct Range {
    Dwarf_Addr start, end;
    size_t unit;
  };

  void Build(Dwfl_Module* m) {
    built_ = true;
    Dwarf_Die* cu = nullptr;
    Dwarf_Addr bias = 0;
    while ((cu = dwfl_module_nextcu(m, cu, &bias)) != nullptr) {
      bias_ = bias;
      Dwarf_Addr base = 0, start = 0, end = 0;
      ptrdiff_t offset = 0;
      while ((offset = dwarf_ranges(cu, offset, &base, &start, &end)) > 0) {
        if (end > start) ranges_.push_back({start, end, units_.size()});
      }
      units_.push_back(*cu);
    }
    std::sort(ranges_.begin(), ranges_.end(), [](const Range& a, const Range& b) { return a.start < b.start; });
  }

  bool built_ = false;
  Dwarf_Addr bias_ = 0;
  std::vector<Dwarf_Die> units_;
  std::vector<Range> ranges_;
};

struct Symbolizer::ModuleDebug {
  Module module;
  bool opened = false;
  Dwfl* dwfl = nullptr;
  Dwfl_Module* dwfl_module = nullptr;  // null when the file is gone or differs
  SortedSymbols symbols;
  UnitRanges units;  // only read where libdw finds no unit by itself
  // Not ELF: a Windows module's COFF symbols (pe_symbols.h), read once.
  bool pe_loaded = false;
  PeSymbols pe_symbols;

  ~ModuleDebug() {
    if (dwfl) dwfl_end(dwfl);
  }

  bool Contains(uint64_t address) const {
    for (const Segment& s : module.segments) {
      uint64_t start = module.load_bias + s.vaddr;
      if (address >= start && address - start < s.memsz) return true;
    }
    return false;
  }

  // Opens the file on first use: most modules of a process never appear
  // in an allocating stack.
  Dwfl_Module* Open() {
    if (opened) return dwfl_module;
    opened = true;
    if (module.path.empty() || module.path[0] != '/') return nullptr;  // [vdso] and friends
    dwfl = dwfl_begin(&kOfflineCallbacks);
    if (!dwfl) return nullptr;
    // The path is the capture's: a regular file only, opened without
    // blocking (a FIFO there would hang the report); libdwfl takes the fd.
    std::string why;
    int fd = wire::OpenRegularFile(module.path, &why);
    if (fd < 0) return nullptr;
    dwfl_report_begin(dwfl);
    // One Dwfl per module: modules that were loaded at the same address one
    // after the other (dlclose, dlopen) would overlap in a shared one.
    Dwfl_Module* m = dwfl_report_elf(dwfl, Basename(module.path).c_str(), module.path.c_str(), fd,
                                     module.load_bias, false);
    dwfl_report_end(dwfl, nullptr, nullptr);
    if (!m) {
      close(fd);  // consumed only on success
      return nullptr;
    }
    if (!module.build_id.empty()) {
      const unsigned char* bits = nullptr;
      GElf_Addr vaddr = 0;
      int length = dwfl_module_build_id(m, &bits, &vaddr);
      if (length > 0 && (static_cast<size_t>(length) != module.build_id.size() ||
                         memcmp(bits, module.build_id.data(), module.build_id.size()) != 0)) {
        return nullptr;  // rebuilt since the capture: its symbols would lie
      }
    }
    dwfl_module = m;
    symbols.Build(m);
    return m;
  }
};

Symbolizer::Symbolizer(std::vector<Module> modules, ModuleClassifier classes) : classes_(std::move(classes)) {
  for (Module& m : modules) {
    auto debug = std::make_unique<ModuleDebug>();
    debug->module = std::move(m);
    modules_.push_back(std::move(debug));
  }
}

Symbolizer::~Symbolizer() = default;

Symbolizer::ModuleDebug* Symbolizer::ModuleFor(uint64_t address) {
  // Latest first: when two modules were mapped at the same place over the
  // run, the later one is the likelier owner.
  for (size_t i = modules_.size(); i-- > 0;) {
    if (modules_[i]->Contains(address)) return modules_[i].get();
  }
  return nullptr;
}

const std::vector<SourceFrame>& Symbolizer::Symbolize(uint64_t return_address) {
  auto it = cache_.find(return_address);
  if (it != cache_.end()) return it->second;
  return cache_.emplace(return_address, Resolve(return_address)).first->second;
}

std::vector<SourceFrame> Symbolizer::SymbolizeStack(const std::vector<uint64_t>& return_addresses) {
  std::vector<SourceFrame> out;
  for (uint64_t address : return_addresses) {
    const auto& frames = Symbolize(address);
    if (!frames.empty() && IsMemframeModule(frames[0].module)) continue;
    out.insert(out.end(), frames.begin(), frames.end());
  }
  return out;
}

void Symbolizer::SetModuleClasses(ModuleClassifier classes) {
  classes_ = std::move(classes);
  for (auto& [address, frames] : cache_) {
    for (SourceFrame& f : frames) f.module_class = classes_.Classify(f.module);
  }
}

std::vector<SourceFrame> Symbolizer::Resolve(uint64_t return_address) {
  SourceFrame base;
  base.address = return_address;
  ModuleDebug* debug = ModuleFor(return_address);
  if (!debug) {
    base.function = Hex(return_address);
    base.module_class = classes_.Classify("");
    return {base};
  }
  base.module = debug->module.path;
  base.module_class = classes_.Classify(base.module);
  base.module_offset = return_address - debug->module.load_bias;
  base.function = ModuleLocation(base);
  Dwfl_Module* m = debug->Open();
  if (!m) {
    // The Windows agent's modules: load_bias is the image base, so the
    // module offset is an RVA.
    if (!debug->pe_loaded && !debug->module.path.empty() && debug->module.path[0] == '/') {
      debug->pe_loaded = true;
      debug->pe_symbols.Load(debug->module.path);
    }
    const char* coff_name = debug->pe_symbols.Find(base.module_offset - 1);
    if (coff_name) base.function = Demangle(coff_name);
    // What DbgHelp named where the game ran: its file:line, and its name.
    // The COFF table holds only the symbols the linker kept (a Wine DLL's:
    // its exports), so its nearest preceding one may be another function;
    // it wins only where it names DbgHelp's function with its namespaces and
    // parameters, which DWARF's names lack.
    auto recorded = debug->module.recorded_symbols.find(base.module_offset);
    if (recorded != debug->module.recorded_symbols.end()) {
      const RecordedSymbol& r = recorded->second;
      if (!r.function.empty() && !(coff_name && QualifiesName(base.function, r.function))) base.function = r.function;
      base.file = r.file;
      base.line = r.line;
    }
    return {base};
  }

  // A return address points after the call; the call itself is one byte
  // earlier, which keeps us inside the caller's line (and function, when
  // the call is the last instruction of a noreturn path).
  const Dwarf_Addr pc = return_address - 1;
  if (const char* name = debug->symbols.Find(pc)) base.function = Demangle(name);
  Dwarf_Addr bias = 0;
  Dwarf_Die* cu = dwfl_module_addrdie(m, pc, &bias);
  if (Dwfl_Line* line = cu ? dwfl_module_getsrc(m, pc) : nullptr) {
    int lineno = 0;
    if (const char* file = dwfl_lineinfo(line, nullptr, &lineno, nullptr, nullptr, nullptr)) {
      base.file = file;
      base.line = static_cast<uint32_t>(lineno > 0 ? lineno : 0);
    }
  } else if ((cu = debug->units.Find(m, pc, &bias)) != nullptr) {
    int lineno = 0;
    Dwarf_Line* line = dwarf_getsrc_die(cu, pc - bias);
    const char* file = line ? dwarf_linesrc(line, nullptr, nullptr) : nullptr;
    if (file && dwarf_lineno(line, &lineno) == 0) {
      base.file = file;
      base.line = static_cast<uint32_t>(lineno > 0 ? lineno : 0);
    }
  }

  // Inlined calls. dwarf_getscopes finds the innermost scope at pc, but
  // past an inlined subroutine it lists the abstract definition's scopes;
  // dwarf_getscopes_die on that innermost DIE gives the concrete nesting
  // instead (what eu-addr2line -i does). Each inlined subroutine is a frame
  // whose location is the line table's (innermost) or the call site of the
  // inlined call inside it.
  std::vector<SourceFrame> frames;
  Dwarf_Die* scopes = nullptr;
  int count = cu ? dwarf_getscopes(cu, pc - bias, &scopes) : 0;
  if (count > 0) {
    Dwarf_Die innermost = scopes[0];
    free(scopes);
    scopes = nullptr;
    count = dwarf_getscopes_die(&innermost, &scopes);
  }
  std::string file = base.file;
  uint32_t line = base.line;
  for (int i = 0; i < count; ++i) {
    Dwarf_Die* die = &scopes[i];
    int tag = dwarf_tag(die);
    if (tag != DW_TAG_inlined_subroutine) {
      if (tag == DW_TAG_subprogram) break;
      continue;  // lexical blocks
    }
    SourceFrame f = base;
    f.function = DieName(die);
    f.file = file;
    f.line = line;
    f.inlined = true;
    frames.push_back(f);
    // The next (outer) frame is where this call was inlined.
    Dwarf_Attribute attr;
    Dwarf_Word file_index = 0, call_line = 0;
    file.clear();
    line = 0;
    if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &attr), &file_index) == 0) {
      Dwarf_Files* files = nullptr;
      size_t file_count = 0;
      if (dwarf_getsrcfiles(cu, &files, &file_count) == 0 && file_index < file_count) {
        if (const char* name = dwarf_filesrc(files, file_index, nullptr, nullptr)) file = name;
      }
    }
    if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &attr), &call_line) == 0)
      line = static_cast<uint32_t>(call_line);
  }
  free(scopes);
  base.file = file;
  base.line = line;
  frames.push_back(base);
  return frames;
}

std::string LineLocation(const SourceFrame& frame) {
  if (frame.file.empty() || frame.line == 0) return "";
  return Basename(frame.file) + ":" + std::to_string(frame.line);
}

std::string ModuleLocation(const SourceFrame& frame) {
  if (frame.module.empty()) return Hex(frame.address);
  return Basename(frame.module) + "+" + Hex(frame.module_offset);
}

}  // namespace memframe::analysis
