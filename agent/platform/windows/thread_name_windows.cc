#include "platform/windows/thread_name_windows.h"

#include <windows.h>

namespace memframe::agent {

void ReadWindowsThreadName(uint32_t tid, char* name, size_t size) {
  name[0] = '\0';
  // Looked up, not imported: Windows before 10 has no thread descriptions.
  using GetDescriptionFn = HRESULT(WINAPI*)(HANDLE, PWSTR*);
  static GetDescriptionFn get_description = reinterpret_cast<GetDescriptionFn>(
      reinterpret_cast<void*>(GetProcAddress(GetModuleHandleW(L"kernel32.dll"), "GetThreadDescription")));
  if (!get_description || size == 0) return;
  HANDLE thread = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, FALSE, tid);
  if (!thread) return;
  PWSTR description = nullptr;
  if (SUCCEEDED(get_description(thread, &description)) && description) {
    char utf8[256];
    int n = WideCharToMultiByte(CP_UTF8, 0, description, -1, utf8, sizeof(utf8), nullptr, nullptr);
    if (n > 0) {
      size_t length = static_cast<size_t>(n - 1);
      if (length > size - 1) {
        length = size - 1;
        while (length > 0 && (static_cast<unsigned char>(utf8[length]) & 0xC0) == 0x80) --length;
      }
      for (size_t i = 0; i < length; ++i) name[i] = utf8[i];
      name[length] = '\0';
    }
    LocalFree(description);
  }
  CloseHandle(thread);
}

}  // namespace memframe::agent
