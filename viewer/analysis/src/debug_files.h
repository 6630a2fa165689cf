// libdwfl callbacks that open only what memframe opened safely. A module's
// path comes from a capture (or a live socket), and so does the directory in
// which its debug file is looked for: libdwfl's standard callbacks would
// open() whatever is there, and a FIFO blocks that open() for good.
#pragma once

#include <elfutils/libdwfl.h>

namespace memframe::analysis {

// A Dwfl_Callbacks::find_debuginfo. Looks where libdwfl's standard one does
// with its default path: /usr/lib/debug/.build-id/xx/rest.debug, then the
// .gnu_debuglink name (or FILE.debug) beside the file, in .debug/ beside it
// and under /usr/lib/debug + its directory. Opens regular files only, never
// blocking (wire::OpenRegularFile), and takes one only if its build ID is
// the module's (or, without one, its CRC is the debuglink's). Also answers
// libdwfl's request for a dwz file (.gnu_debugaltlink), by name.
int FindDebugFile(Dwfl_Module* module, void** userdata, const char* module_name, Dwarf_Addr base,
                  const char* file_name, const char* debuglink_file, GElf_Word debuglink_crc,
                  char** debuginfo_file_name);

// A Dwfl_Callbacks::find_elf that finds nothing: the symbolizer reports
// every module with a descriptor it opened itself (dwfl_report_elf), so
// libdwfl never has to look for one.
int FindNoElf(Dwfl_Module* module, void** userdata, const char* module_name, Dwarf_Addr base, char** file_name,
              Elf** elf);

}  // namespace memframe::analysis
