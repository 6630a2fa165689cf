#include "platform/windows/command_line_windows.h"

#include <windows.h>

namespace memframe::agent {

namespace {
bool Blank(wchar_t c) { return c == L' ' || c == L'\t'; }

// Appends one wide argument to `out` as UTF-8 with its NUL.
bool Append(const wchar_t* arg, size_t length, char* out, size_t size, size_t* used) {
  if (*used >= size) return false;
  int n = length ? WideCharToMultiByte(CP_UTF8, 0, arg, static_cast<int>(length), out + *used,
                                       static_cast<int>(size - *used - 1), nullptr, nullptr)
                 : 0;
  if (length && n <= 0) return false;
  out[*used + static_cast<size_t>(n)] = '\0';
  *used += static_cast<size_t>(n) + 1;
  return true;
}
}  // namespace

size_t SplitCommandLine(const wchar_t* line, char* out, size_t size) {
  wchar_t arg[4096];
  size_t used = 0;
  if (!line || size == 0) return 0;
  // The program's name: up to the closing quote, or to a blank; backslashes
  // are no escapes in it.
  size_t length = 0;
  const wchar_t* p = line;
  if (*p == L'"') {
    for (++p; *p && *p != L'"' && length < 4095; ++p) arg[length++] = *p;
    if (*p == L'"') ++p;
  } else {
    for (; *p && !Blank(*p) && length < 4095; ++p) arg[length++] = *p;
  }
  if (!Append(arg, length, out, size, &used)) return 0;
  // The rest: 2n backslashes before a quote are n and the quote opens or
  // closes a quoted part; 2n+1 are n and a literal quote; "" inside a
  // quoted part is a literal quote; other backslashes are themselves.
  for (;;) {
    while (Blank(*p)) ++p;
    if (!*p) break;
    length = 0;
    bool quoted = false;
    for (; *p && (quoted || !Blank(*p)) && length < 4095; ++p) {
      if (*p == L'\\') {
        size_t slashes = 0;
        while (p[slashes] == L'\\') ++slashes;
        if (p[slashes] == L'"') {
          for (size_t i = 0; i < slashes / 2 && length < 4095; ++i) arg[length++] = L'\\';
          p += slashes;
          if (slashes % 2) {
            if (length < 4095) arg[length++] = L'"';
          } else {
            --p;  // the quote is read as one
          }
        } else {
          for (size_t i = 0; i < slashes && length < 4095; ++i) arg[length++] = L'\\';
          p += slashes - 1;
        }
      } else if (*p == L'"') {
        if (quoted && p[1] == L'"') {
          arg[length++] = L'"';
          ++p;
        } else {
          quoted = !quoted;
        }
      } else {
        arg[length++] = *p;
      }
    }
    if (!Append(arg, length, out, size, &used)) break;
  }
  return used;
}

}  // namespace memframe::agent
