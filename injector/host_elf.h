// The host side's one ELF reader, on libelf (elfutils): what `memframe run`
// checks before a launch (class, machine, PT_INTERP), the allocator a
// program links (its defined functions), and where `memframe attach` finds a
// function in a module (.dynsym and the first PT_LOAD). libelf reads either
// class and byte order and bounds every table by the file's size, so a
// damaged file yields nothing, never a crash. The agent cannot use it (it
// allocates): it reads its own way, allocation-free
// (memframe/elf_functions.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

typedef struct Elf Elf;

namespace memframe::injector {

class HostElf {
 public:
  explicit HostElf(const std::string& path);
  // Reads an open file and closes it when done (a file root opened safely,
  // such as /proc/PID/map_files/RANGE).
  explicit HostElf(int owned_fd);
  ~HostElf();
  HostElf(const HostElf&) = delete;
  HostElf& operator=(const HostElf&) = delete;

  // An ELF file libelf could read the header of.
  bool valid() const { return elf_ != nullptr && elf_class_ != 0; }
  uint8_t elf_class() const { return elf_class_; }  // ELFCLASS32 / ELFCLASS64
  uint16_t machine() const { return machine_; }     // e_machine
  // Whether it has a PT_INTERP program header: the dynamic loader (which
  // handles LD_PRELOAD) runs only then. False for static and static-pie.
  bool HasInterpreter() const;
  size_t ProgramHeaderCount() const;
  // p_vaddr of the PT_LOAD that maps file offset 0 (0 if none).
  uint64_t FirstLoadAddress() const;
  // Every global or weak function the file defines (.symtab and .dynsym,
  // or .dynsym only), with its st_value (for an indirect function, its
  // resolver); `visit` returns false to stop.
  void ForEachDefinedFunction(bool dynamic_only,
                              const std::function<bool(std::string_view name, uint64_t value, bool indirect)>& visit) const;

 private:
  void Read();

  int fd_ = -1;
  Elf* elf_ = nullptr;
  uint8_t elf_class_ = 0;
  uint16_t machine_ = 0;
};

}  // namespace memframe::injector
