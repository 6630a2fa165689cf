// Where a capture's bytes go, and what other event encodings would cost:
// re-encodes the EventBatches of a real capture with several candidate
// schemes and compresses each the way the recorder does (zstd, one stream).
// A measuring tool for people choosing the wire format (README.md, issue 6),
// not part of memframe.
//
//   memframe_encoding_lab CAPTURE.mfc [--level N]
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "memframe.pb.h"
#include "memframe/capture_file.h"
#include "memframe/varint.h"

namespace {

namespace wire = memframe::wire;

struct Ev {
  uint32_t kind;
  uint64_t address, size, ticks, frame;
  uint32_t stack, duration;
};
struct Batch {
  uint32_t tid;
  std::vector<Ev> events;
};

std::vector<Batch> ReadBatches(const char* path) {
  std::string error;
  auto reader = wire::CaptureReader::Open(path, &error);
  if (!reader) {
    std::fprintf(stderr, "encoding_lab: %s\n", error.c_str());
    std::exit(1);
  }
  std::vector<Batch> batches;
  wire::CaptureRecord record;
  wire::Packet packet;
  while (reader->Next(&record)) {
    if (!packet.ParseFromArray(record.packet.data(), static_cast<int>(record.packet.size()))) continue;
    if (!packet.has_events()) continue;
    const wire::EventBatch& b = packet.events();
    Batch out{b.thread_id(), {}};
    uint64_t address = 0, ticks = b.base_ticks(), frame = b.base_frame();
    for (int i = 0; i < b.kind_size(); ++i) {
      address += wire::UnZigZag(b.address_delta(i));
      ticks += b.ticks_delta(i);
      frame += b.frame_delta(i);
      out.events.push_back({b.kind(i), address, b.size(i), ticks, frame, b.stack_id(i), b.duration_ticks(i)});
    }
    batches.push_back(std::move(out));
  }
  return batches;
}

// Column streams of one scheme; every column is a varint stream.
struct Columns {
  std::map<std::string, std::string> column;
  void Put(const std::string& name, uint64_t v) {
    std::string& s = column[name];
    while (v >= 0x80) {
      s.push_back(static_cast<char>(v | 0x80));
      v >>= 7;
    }
    s.push_back(static_cast<char>(v));
  }
};

uint64_t Zig(int64_t v) { return wire::ZigZag(v); }
int Kind(uint32_t k) { return k & 7; }

size_t Compressed(const std::string& data, int level) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  return ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
}

// The file is all batches in order, columns of one batch next to each other;
// approximate that by interleaving column chunks batch by batch.
struct Scheme {
  const char* name;
  std::string whole;
  Columns totals;
};

template <typename EncodeBatch>
void Run(const char* name, const std::vector<Batch>& batches, uint64_t events, int level, EncodeBatch encode) {
  std::string whole;
  std::map<std::string, std::string> per_column;
  for (const Batch& b : batches) {
    Columns c;
    encode(b, c);
    for (auto& [col, bytes] : c.column) {
      whole += bytes;
      per_column[col] += bytes;
    }
  }
  size_t total = Compressed(whole, level);
  std::printf("%-34s %6.2f B/event  (raw %5.2f)  ", name, double(total) / events, double(whole.size()) / events);
  for (auto& [col, bytes] : per_column) std::printf(" %s=%.2f", col.c_str(), double(Compressed(bytes, level)) / events);
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: memframe_encoding_lab CAPTURE.mfc [--level N]\n");
    return 2;
  }
  int level = 3;
  if (argc >= 4 && std::strcmp(argv[2], "--level") == 0) level = std::atoi(argv[3]);
  std::vector<Batch> batches = ReadBatches(argv[1]);
  uint64_t events = 0;
  for (const Batch& b : batches) events += b.events.size();
  std::printf("%llu events in %zu batches, zstd level %d\n", (unsigned long long)events, batches.size(), level);

  // Today's wire format.
  Run("baseline (wire today)", batches, events, level, [](const Batch& b, Columns& c) {
    uint64_t pa = 0, pt = b.events[0].ticks, pf = b.events[0].frame;
    for (const Ev& e : b.events) {
      c.Put("kind", e.kind);
      c.Put("addr", Zig(int64_t(e.address - pa)));
      c.Put("size", e.size);
      c.Put("stack", e.stack);
      c.Put("ticks", e.ticks - pt);
      c.Put("frame", e.frame - pf);
      c.Put("dur", e.duration);
      pa = e.address, pt = e.ticks, pf = e.frame;
    }
  });

  // Addresses in 16-byte units, allocations and frees each delta'd against their own kind.
  Run("addr>>4, per-kind deltas", batches, events, level, [](const Batch& b, Columns& c) {
    uint64_t prev[8] = {};
    uint64_t pt = b.events[0].ticks, pf = b.events[0].frame;
    for (const Ev& e : b.events) {
      c.Put("kind", e.kind);
      uint64_t a = e.address >> 4;
      c.Put("addr", Zig(int64_t(a - prev[Kind(e.kind)])));
      c.Put("addrlow", e.address & 15);
      prev[Kind(e.kind)] = a;
      c.Put("size", e.size);
      c.Put("stack", e.stack);
      c.Put("ticks", e.ticks - pt);
      c.Put("frame", e.frame - pf);
      c.Put("dur", e.duration);
      pt = e.ticks, pf = e.frame;
    }
  });

  // Frees name the allocation they free by how many allocations ago (all
  // threads) it was made; allocations reuse a recently freed address by index.
  struct Refs {
    std::unordered_map<uint64_t, uint64_t> live;  // address -> allocation serial
    uint64_t serial = 0;
    std::vector<uint64_t> recent_frees;  // most recent last
  };
  for (int tick_shift : {0, 4, 6}) {
    for (int reuse : {0, 1}) {
      Refs refs;
      std::string name = std::string("free refs") + (reuse ? " + reuse refs" : "") + ", ticks>>" +
                         std::to_string(tick_shift);
      Run(name.c_str(), batches, events, level, [&](const Batch& b, Columns& c) {
        uint64_t prev_alloc = 0, prev_free = 0;
        uint64_t pt = b.events[0].ticks >> tick_shift, pf = b.events[0].frame;
        for (const Ev& e : b.events) {
          c.Put("kind", e.kind);
          uint64_t a = e.address >> 4;
          if (Kind(e.kind) == 1) {
            bool done = false;
            if (reuse) {
              size_t n = refs.recent_frees.size();
              for (size_t k = 0; k < 16 && k < n; ++k) {
                if (refs.recent_frees[n - 1 - k] == e.address) {
                  c.Put("reuse", k + 1);
                  done = true;
                  break;
                }
              }
              if (!done) c.Put("reuse", 0);
            }
            if (!done) c.Put("addr", Zig(int64_t(a - prev_alloc)));
            prev_alloc = a;
            refs.live[e.address] = ++refs.serial;
            c.Put("size", e.size);
            c.Put("stack", e.stack);
          } else if (Kind(e.kind) == 2) {
            auto it = refs.live.find(e.address);
            if (it != refs.live.end()) {
              c.Put("freeref", refs.serial - it->second + 1);
              refs.live.erase(it);
            } else {
              c.Put("freeref", 0);
              c.Put("addr", Zig(int64_t(a - prev_free)));
            }
            prev_free = a;
            if (reuse) refs.recent_frees.push_back(e.address);
            if (refs.recent_frees.size() > 4096) refs.recent_frees.erase(refs.recent_frees.begin(), refs.recent_frees.begin() + 2048);
            c.Put("size", e.size);
          } else {
            c.Put("addr", Zig(int64_t(a - prev_alloc)));
            c.Put("size", e.size);
            c.Put("stack", e.stack);
          }
          c.Put("addrlow", e.address & 15);
          uint64_t t = e.ticks >> tick_shift;
          c.Put("ticks", t - pt);
          c.Put("frame", e.frame - pf);
          c.Put("dur", e.duration >> (tick_shift ? 2 : 0));
          pt = t, pf = e.frame;
        }
      });
    }
  }
  // Statistics that say which predictions could work.
  {
    uint64_t frees = 0, frees_sized = 0, allocs = 0, same_size_as_stack = 0, lifo_hit0 = 0, lifo_hit_any = 0;
    std::unordered_map<uint32_t, uint64_t> last_size_of_stack;
    std::unordered_map<uint64_t, uint64_t> live_size;
    std::unordered_map<uint64_t, std::vector<uint64_t>> freed_by_class;
    for (const Batch& b : batches)
      for (const Ev& e : b.events) {
        if (Kind(e.kind) == 2) {
          ++frees;
          frees_sized += e.size != 0;
          auto it = live_size.find(e.address);
          if (it != live_size.end()) {
            freed_by_class[(it->second + 15) / 16].push_back(e.address);
            live_size.erase(it);
          }
        } else if (Kind(e.kind) == 1) {
          ++allocs;
          auto it = last_size_of_stack.find(e.stack);
          same_size_as_stack += it != last_size_of_stack.end() && it->second == e.size;
          last_size_of_stack[e.stack] = e.size;
          auto& stack = freed_by_class[(e.size + 15) / 16];
          for (size_t k = 0; k < stack.size() && k < 8; ++k)
            if (stack[stack.size() - 1 - k] == e.address) {
              lifo_hit0 += k == 0;
              ++lifo_hit_any;
              stack.erase(stack.end() - 1 - k);
              break;
            }
          live_size[e.address] = e.size;
        }
      }
    std::printf("allocs %llu, frees %llu (with a size: %llu), alloc size == stack's previous: %.1f%%, "
                "alloc address == last freed of its class: %.1f%% (top 8: %.1f%%)\n",
                (unsigned long long)allocs, (unsigned long long)frees, (unsigned long long)frees_sized,
                100.0 * same_size_as_stack / allocs, 100.0 * lifo_hit0 / allocs, 100.0 * lifo_hit_any / allocs);
  }
  return 0;
}
