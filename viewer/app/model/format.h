// Units as a game developer reads them: KiB/MiB, ns/µs/ms, 12,345.
#pragma once

#include <cstdint>
#include <string>

namespace memframe::viewer {

std::string FormatBytes(uint64_t bytes);        // "96 B", "1.50 KiB", "9.01 MiB"
std::string FormatCount(uint64_t count);        // "47,484"
std::string FormatDuration(uint64_t nanoseconds);  // "441 ns", "1.20 µs", "5.53 ms"
std::string FormatSizeBin(int bin);             // "32–63 B", "1–2 KiB"

}  // namespace memframe::viewer
