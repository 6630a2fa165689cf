// libFuzzer target: a mutated capture goes through everything `memframe
// report` and the viewer do with a file before symbolizing: the reader,
// the packet parser, the batch decoder, the per-thread merge, the frame
// source, the heap analysis and the live-set index.
//
// An input is one of:
//   - a capture file ("MEMFRAME" + version + zstd), read as is: covers the
//     header and zstd damage;
//   - anything else: taken as the decompressed record stream (varint
//     stream, varint length, packet) and wrapped in a valid header and zstd
//     frame first, so that mutations reach the decoder instead of dying on
//     zstd's checksum.
// Symbolization is left out on purpose: module paths in a capture name
// files on this machine, and a fuzzer must not open whatever they say.
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <string>

#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/format.h"

namespace {

std::string WrapRecords(const uint8_t* data, size_t size) {
  std::string file(memframe::wire::kCaptureMagic, sizeof(memframe::wire::kCaptureMagic));
  for (int i = 0; i < 4; ++i) file += static_cast<char>(memframe::wire::kCaptureVersion >> (8 * i));
  // With its checksum, as the recorder writes it: a reader refuses a frame
  // without one.
  static ZSTD_CCtx* cctx = [] {
    ZSTD_CCtx* c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, 1);
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    return c;
  }();
  std::string packed(ZSTD_compressBound(size), '\0');
  size_t n = ZSTD_compress2(cctx, packed.data(), packed.size(), data, size);
  if (ZSTD_isError(n)) return file;
  return file + packed.substr(0, n);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace memframe::analysis;
  const bool is_file = size >= sizeof(memframe::wire::kCaptureMagic) &&
                       memcmp(data, memframe::wire::kCaptureMagic, sizeof(memframe::wire::kCaptureMagic)) == 0;
  const std::string bytes = is_file ? std::string(reinterpret_cast<const char*>(data), size) : WrapRecords(data, size);

  std::string error;
  auto source = OpenCaptureMemory(bytes.data(), bytes.size(), "fuzz input", &error);
  if (!source) return 0;
  Capture capture;
  if (!LoadCapture(*source, "fuzz input", &capture, &error) || !capture.has_main) return 0;

  HeapAnalysis heap = AnalyzeHeap(capture.main);
  // The live set at a few frames (frame numbers are any 64-bit values),
  // through the checkpoints and without.
  const auto& rows = heap.frames.frames;
  const uint64_t middle = rows.empty() ? 0 : rows[rows.size() / 2].frame;
  for (uint64_t frame : {uint64_t{0}, middle, middle + 1, heap.frames.All().to, UINT64_MAX})
    (void)heap.live_sets.AtFrame(capture.main, frame).live_bytes();
  (void)heap.live_sets.AtPosition(capture.main, capture.main.events.size() / 2).live_bytes();
  // Every event read back once more, by index (the viewer's access path).
  if (!capture.main.events.empty()) (void)capture.main.events[capture.main.events.size() - 1];
  return 0;
}
