#include "platform/windows/analysis_path.h"

#include <windows.h>

#include <cstring>

namespace memframe::agent {

void AnalysisPath(const wchar_t* wide, char* path, size_t size) {
  using UnixNameFn = char* (*)(const wchar_t*);
  static UnixNameFn unix_name = reinterpret_cast<UnixNameFn>(
      reinterpret_cast<void*>(GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "wine_get_unix_file_name")));
  path[0] = '\0';
  if (unix_name) {
    if (char* name = unix_name(wide)) {
      size_t len = strlen(name);
      if (len < size) memcpy(path, name, len + 1);
      HeapFree(GetProcessHeap(), 0, name);
      if (path[0]) return;
    }
  }
  int bytes = WideCharToMultiByte(CP_UTF8, 0, wide, -1, path, static_cast<int>(size), nullptr, nullptr);
  if (bytes <= 0) path[0] = '\0';
}

}  // namespace memframe::agent
