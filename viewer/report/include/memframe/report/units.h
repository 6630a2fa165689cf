// Units as a game developer reads them, one definition for the reports and
// the viewer so that the two always print the same figure the same way.
#pragma once

#include <cstdint>
#include <string>

namespace memframe::analysis {

// The one ladder of binary units, 1024 apart and spelled as IEC does.
inline constexpr const char* kBinaryUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
// Divides *value by 1024 while it is at least 1024 and a larger unit is
// left; returns the unit's index in kBinaryUnits.
int ScaleToBinaryUnit(double* value);

std::string FormatCount(uint64_t value);     // 1234567 -> "1,234,567"
std::string FormatBytes(uint64_t bytes);     // "812 B", "12.3 KiB", "4.56 MiB"
// Exact where the value is (a power-of-two edge, an axis tick): "1 KiB",
// "1.5 KiB", "4 GiB", up to three decimals.
std::string FormatBytesExact(double bytes);
// A size bin of size_histogram.h: "0 B", "1 B", "32–63 B", "32 KiB – 64 KiB"
// (above 1 KiB the upper edge is the next power, exclusive, exact in binary
// units), "8 EiB +".
std::string FormatSizeBin(int bin);
std::string FormatDuration(uint64_t ns);     // "850 ns", "12.3 µs", "4.50 ms", "1.20 s"
std::string FormatPercent(double fraction);  // 0.5 -> "50%"
// A count per frame, three significant digits: "0.42", "25.1", "1,529"; "0".
std::string FormatRate(double value);
// Bytes per frame: FormatRate's digits below 1 KiB ("0.19 B", "24.5 B"),
// FormatBytes' above ("718 KiB").
std::string FormatByteRate(double bytes);
// The same with a sign, for a change: "+0.27", "-7.30 KiB", "+0 B" for 0.
std::string FormatSignedRate(double value);
std::string FormatSignedByteRate(double bytes);
// part / whole as FormatPercent says it; "0%" when whole is 0.
std::string FormatShare(uint64_t part, uint64_t whole);
// "1 block", "2,048 blocks" (nouns whose plural takes an s).
std::string Plural(uint64_t count, const std::string& noun);

}  // namespace memframe::analysis
