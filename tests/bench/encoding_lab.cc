// Where a capture's bytes go, and what other event encodings would cost:
// re-encodes the EventBatches of a real capture with candidate schemes and
// compresses each the way the recorder does (zstd, one stream). A measuring
// tool for people choosing the wire format (README.md, issue 6), not part of
// memframe.
//
//   memframe_encoding_lab CAPTURE.mfc [--level N]
#include <zstd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "memframe.pb.h"
#include "memframe/capture_file.h"
#include "memframe/event_codec.h"
#include "memframe/event_refs.h"
#include "memframe/format.h"
#include "memframe/varint.h"

namespace {

namespace wire = memframe::wire;

struct Ev {
  uint32_t kind;
  uint64_t address, size, ticks, frame;
  uint32_t stack, duration;
  uint32_t dur_code = 0;  // what the "dur" column sends: the duration in units, or its log-scale code
};
struct Batch {
  uint32_t tid;
  std::vector<Ev> events;
};

void PutVarint(std::string& s, uint64_t v) {
  while (v >= 0x80) {
    s.push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
}

std::vector<Batch> ReadBatches(const char* path, uint64_t* file_bytes, uint64_t* other_bytes) {
  std::string error;
  auto reader = wire::CaptureReader::Open(path, &error);
  if (!reader) {
    std::fprintf(stderr, "encoding_lab: %s\n", error.c_str());
    std::exit(1);
  }
  std::vector<Batch> batches;
  std::string others;  // every record that is not an EventBatch, to size them
  std::map<std::string, std::string> by_type;
  std::string stacks_outer_delta;  // frames from the outermost, zigzag delta from the previous stack's
  wire::CaptureRecord record;
  wire::Packet packet;
  std::map<uint32_t, std::unique_ptr<wire::EventBatchDecoder>> decoders;  // per stream, from its Hello
  std::vector<wire::PlainEvent> plain;
  while (reader->Next(&record)) {
    if (!packet.ParseFromArray(record.packet.data(), static_cast<int>(record.packet.size()))) continue;
    if (packet.has_hello())
      decoders[record.stream] = std::make_unique<wire::EventBatchDecoder>(packet.hello().protocol_version());
    if (!packet.has_events()) {
      others.append(reinterpret_cast<const char*>(record.packet.data()), record.packet.size());
      by_type[packet.has_stacks() ? "stacks" : packet.has_module_map() ? "modules" : "other"].append(
          reinterpret_cast<const char*>(record.packet.data()), record.packet.size());
      if (packet.has_stacks()) {
        static std::vector<uint64_t> previous;
        for (const auto& def : packet.stacks().stacks()) {
          PutVarint(stacks_outer_delta, def.id());
          PutVarint(stacks_outer_delta, def.frames_size());
          std::vector<uint64_t> outer(def.frames().rbegin(), def.frames().rend());
          for (size_t k = 0; k < outer.size(); ++k)
            PutVarint(stacks_outer_delta, wire::ZigZag(int64_t(outer[k] - (k < previous.size() ? previous[k] : 0))));
          previous = outer;
        }
      }
      continue;
    }
    const wire::EventBatch& b = packet.events();
    auto& decoder = decoders[record.stream];
    if (!decoder || !decoder->Decode(b, &plain, &error)) continue;
    Batch out{b.thread_id(), {}};
    for (const wire::PlainEvent& e : plain)
      out.events.push_back({e.kind, e.address, e.size, e.ticks, e.frame, e.stack_id, e.duration, e.duration});
    plain.clear();
    batches.push_back(std::move(out));
  }
  *file_bytes = reader->bytes_read();
  std::string out(ZSTD_compressBound(others.size()), '\0');
  *other_bytes = ZSTD_compress(out.data(), out.size(), others.data(), others.size(), 1);
  for (auto& [type, bytes] : by_type) {
    std::string o(ZSTD_compressBound(bytes.size()), '\0');
    std::printf("  %s: %zu bytes raw, %zu zstd-1\n", type.c_str(), bytes.size(),
                ZSTD_compress(o.data(), o.size(), bytes.data(), bytes.size(), 1));
  }
  std::string o(ZSTD_compressBound(stacks_outer_delta.size()), '\0');
  std::printf("  stacks, frames delta from the previous stack's, outermost first: %zu raw, %zu zstd-1\n",
              stacks_outer_delta.size(),
              ZSTD_compress(o.data(), o.size(), stacks_outer_delta.data(), stacks_outer_delta.size(), 1));
  return batches;
}

// Column streams of one batch, in the order the scheme first wrote them.
struct Columns {
  std::vector<std::pair<std::string, std::vector<uint64_t>>> column;
  void Put(const char* name, uint64_t v) {
    for (auto& [n, values] : column)
      if (n == name) return values.push_back(v);
    column.push_back({name, {v}});
  }
};

uint64_t Zig(int64_t v) { return wire::ZigZag(v); }
int Kind(uint32_t k) { return static_cast<int>(wire::KindOf(k)); }

size_t Compressed(const std::string& data, int level) {
  std::string out(ZSTD_compressBound(data.size()), '\0');
  return ZSTD_compress(out.data(), out.size(), data.data(), data.size(), level);
}

// One zstd stream over the pieces, a block ended after each piece marked so.
size_t CompressedInPieces(const std::vector<std::pair<std::string, bool>>& pieces, int level) {
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
  std::string out(ZSTD_CStreamOutSize(), '\0');
  size_t total = 0;
  auto put = [&](const std::string& data, ZSTD_EndDirective mode) {
    ZSTD_inBuffer in{data.data(), data.size(), 0};
    for (;;) {
      ZSTD_outBuffer o{out.data(), out.size(), 0};
      size_t left = ZSTD_compressStream2(cctx, &o, &in, mode);
      total += o.pos;
      if (mode == ZSTD_e_continue ? in.pos == in.size : left == 0) return;
    }
  };
  for (const auto& [data, flush] : pieces) put(data, flush ? ZSTD_e_flush : ZSTD_e_continue);
  put(std::string(), ZSTD_e_end);
  ZSTD_freeCCtx(cctx);
  return total;
}

// How one column's values become bytes.
enum class Layout { kVarint, kPlanes };

std::string Serialize(const std::vector<uint64_t>& values, Layout layout) {
  std::string s;
  if (layout == Layout::kVarint) {
    for (uint64_t v : values) PutVarint(s, v);
    return s;
  }
  // Byte planes: a width byte, then byte 0 of every value, byte 1 of every value...
  int width = 1;
  for (uint64_t v : values)
    while (width < 8 && (v >> (8 * width))) ++width;
  s.push_back(static_cast<char>(width));
  for (int k = 0; k < width; ++k)
    for (uint64_t v : values) s.push_back(static_cast<char>(v >> (8 * k)));
  return s;
}

struct Options {
  bool free_ref = false;   // frees name their allocation by serial distance
  int window = 1 << 16;    // how far back a free may reach
  int table_bits = 0;      // 0: exact live map; else a direct-mapped cache of 2^bits slots (the agent's)
  int addr_mode = 0;       // 0 delta from the previous address, 1 MTF of recent frees, 2 per-class LIFO of frees
  bool size_pred = false;  // allocation sizes: 0 = the stack's previous size, else size + 1
  int tick_gap = 0;        // ticks: 1 the zigzag gap between the previous event's end and this one's start,
                           // 2 the same clamped at 0 (not lossless: what the zigzag bit costs)
  bool addr_prev_all = false;  // address deltas from the previous event's address, referenced or not
  int merge = 0;           // merge a thread's consecutive batches up to this many events
  bool split = false;      // end a zstd block after each column of 1 KiB+ of a batch of 16 KiB+ (the recorder's)
  Layout layout = Layout::kVarint;
  bool free_columns = false;  // a FREE's size and stack in columns of their own, left out when all 0 (protocol 3)
  bool by_kind = false;       // the tick and duration columns split into ALLOC / FREE / other columns too
  bool size_lohi = false;     // allocation sizes as two columns: the low 7 bits and the rest
  int round_bits = 0;         // time in units of 2^round_bits ticks, both ends rounded down (protocol 3: 4)
  int dur_bits = -1;          // >= 0: durations on a log scale with this many mantissa bits (protocol 4: 3)
  bool addr_bump = false;     // an ALLOC's address without reference: from the end of the batch's previous
                              // allocation's glibc chunk (the top of the heap growing), not the previous address
  int dur_round_bits = -1;    // >= 0: durations in units of 2^dur_round_bits ticks of their own, the tick
                              // gaps timed with them in tick units, rounded down (protocol 5: 4)
};

// Stream-wide encoder state (what the agent's writer would keep).
struct State {
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> live;  // address -> serial, size
  std::vector<std::pair<uint64_t, uint64_t>> cache;                  // direct-mapped: address, serial
  std::vector<uint64_t> size_of_serial;                              // ring: the decoder's view
  uint64_t serial = 0;
  std::vector<uint64_t> recent_frees;                                // most recent last
  std::unordered_map<uint64_t, std::vector<uint64_t>> freed_by_class;
  std::unordered_map<uint32_t, uint64_t> size_of_stack;
};

uint64_t ClassOf(uint64_t size) { return size <= 24 ? 0 : (size + 8 + 15) / 16; }

void EncodeBatch(const Options& o, State& st, const Batch& b, Columns& c) {
  uint64_t prev_addr = 0, prev_end = b.events[0].ticks, prev_ticks = b.events[0].ticks, pf = b.events[0].frame;
  uint64_t bump = 0;  // where the batch's previous allocation's chunk ended
  for (const Ev& e : b.events) {
    c.Put("kind", e.kind);
    const int kind = Kind(e.kind);
    const std::string suffix = kind == wire::EVENT_ALLOC ? "A" : kind == wire::EVENT_FREE ? "F" : "O";
    // A column of its own for a FREE's entries (`free_only`), or for each kind.
    auto put_split = [&](const char* name, uint64_t v, bool free_only) {
      c.Put(o.by_kind ? (name + suffix).c_str() : free_only && kind == wire::EVENT_FREE ? (std::string(name) + "F").c_str() : name, v);
    };
    auto put = [&](const char* name, uint64_t v) { put_split(name, v, false); };
    bool addr_done = false;
    if (o.free_ref && kind == wire::EVENT_FREE) {
      uint64_t ref = 0, freed_size = 0;
      if (o.table_bits) {
        auto& slot = st.cache[(e.address * 0x9E3779B97F4A7C15ull) >> (64 - o.table_bits)];
        if (slot.first == e.address && st.serial - slot.second < uint64_t(o.window)) {
          ref = st.serial - slot.second + 1;
          freed_size = st.size_of_serial[slot.second % st.size_of_serial.size()];
          slot = {0, 0};
        }
      } else {
        auto it = st.live.find(e.address);
        if (it != st.live.end() && st.serial - it->second.first < uint64_t(o.window)) {
          ref = st.serial - it->second.first + 1;
          freed_size = it->second.second;
        }
        if (it != st.live.end()) st.live.erase(it);
      }
      c.Put("freeref", ref);
      addr_done = ref != 0;
      if (ref && o.addr_prev_all) prev_addr = e.address;
      if (ref) {
        if (o.addr_mode == 1) {
          st.recent_frees.push_back(e.address);
          if (st.recent_frees.size() > 64) st.recent_frees.erase(st.recent_frees.begin());
        } else if (o.addr_mode == 2) {
          auto& list = st.freed_by_class[ClassOf(freed_size)];
          list.push_back(e.address);
          if (list.size() > 16) list.erase(list.begin());
        }
      }
    }
    if (o.free_ref && kind == wire::EVENT_ALLOC) {
      if (o.addr_mode) {
        auto& list = o.addr_mode == 1 ? st.recent_frees : st.freed_by_class[ClassOf(e.size)];
        uint64_t hit = 0;
        for (size_t k = 0; k < list.size() && k < 16; ++k)
          if (list[list.size() - 1 - k] == e.address) {
            hit = k + 1;
            list.erase(list.end() - 1 - static_cast<long>(k));
            break;
          }
        c.Put("reuse", hit);
        addr_done = hit != 0;
        if (hit) prev_addr = e.address;
      }
      ++st.serial;
      if (o.table_bits) {
        st.cache[(e.address * 0x9E3779B97F4A7C15ull) >> (64 - o.table_bits)] = {e.address, st.serial};
        st.size_of_serial[st.serial % st.size_of_serial.size()] = e.size;
      } else {
        st.live[e.address] = {st.serial, e.size};
      }
    }
    if (!addr_done) {
      const bool from_bump = o.addr_bump && kind == wire::EVENT_ALLOC && bump;
      c.Put(from_bump ? "addrA" : "addr", Zig(int64_t(e.address - (from_bump ? bump : prev_addr))));
      prev_addr = e.address;
    }
    if (kind == wire::EVENT_ALLOC) bump = e.address + std::max<uint64_t>(32, (e.size + 8 + 15) & ~uint64_t{15});
    if (o.size_pred && kind == wire::EVENT_ALLOC) {
      auto it = st.size_of_stack.find(e.stack);
      bool same = it != st.size_of_stack.end() && it->second == e.size;
      c.Put("size", same ? 0 : e.size + 1);
      st.size_of_stack[e.stack] = e.size;
    } else if (o.size_lohi && kind == wire::EVENT_ALLOC) {
      put("size", e.size & 127);
      put("sizehi", e.size >> 7);
    } else {
      put_split("size", e.size, o.free_columns);
    }
    put_split("stack", e.stack, o.free_columns);
    if (o.tick_gap) {
      bool after_call = kind == wire::EVENT_ALLOC || kind == wire::EVENT_MAP;
      uint64_t start = after_call ? e.ticks - e.duration : e.ticks;
      int64_t g = int64_t(start - prev_end);
      if (o.tick_gap == 3) {  // gap + 1, or 0 and the plain delta in a column of its own
        bool escape = g < 0 || (after_call && e.ticks < e.duration);
        put("ticks", escape ? 0 : uint64_t(g) + 1);
        if (escape) c.Put("tickx", e.ticks - prev_ticks);
        prev_ticks = e.ticks;
      } else {
        c.Put("ticks", o.tick_gap == 1 ? Zig(g) : uint64_t(g < 0 ? 0 : g));
      }
      prev_end = after_call ? e.ticks : e.ticks + e.duration;
    } else {
      c.Put("ticks", e.ticks - prev_ticks);
      prev_ticks = e.ticks;
    }
    c.Put("frame", e.frame - pf);
    put("dur", e.dur_code);
    pf = e.frame;
  }
}

// A thread's consecutive batches joined up to `merge` events, emitted where
// the last of them was.
std::vector<Batch> Merge(const std::vector<Batch>& batches, int merge) {
  if (!merge) return batches;
  std::vector<Batch> out;
  std::map<uint32_t, Batch> pending;
  for (const Batch& b : batches) {
    Batch& p = pending[b.tid];
    p.tid = b.tid;
    if (p.events.size() + b.events.size() > size_t(merge) && !p.events.empty()) {
      out.push_back(std::move(p));
      p = Batch{b.tid, {}};
    }
    p.events.insert(p.events.end(), b.events.begin(), b.events.end());
  }
  for (auto& [tid, p] : pending)
    if (!p.events.empty()) out.push_back(std::move(p));
  return out;
}

void Run(const char* name, const Options& o, const std::vector<Batch>& input, uint64_t events, int level) {
  std::vector<Batch> batches = Merge(input, o.merge);
  // Time in units: the tick columns see the units, the "dur" column the
  // duration's units or its log-scale code (and the gaps the units the code
  // stands for, as both ends of protocol 4 compute them).
  for (Batch& b : batches)
    for (Ev& e : b.events) {
      if (!o.round_bits && o.dur_bits < 0) continue;
      const uint32_t dur_shift = static_cast<uint32_t>(o.dur_round_bits >= 0 ? o.dur_round_bits : o.round_bits);
      const wire::UnitTicks units = wire::ToUnits(e.ticks, e.duration, dur_shift);
      e.ticks >>= o.round_bits;
      e.duration = units.duration;
      e.dur_code = units.duration;
      if (o.dur_bits >= 0) {  // the units' log-scale code
        e.dur_code = wire::DurationCode(units.duration, static_cast<uint32_t>(o.dur_bits));
        e.duration = static_cast<uint32_t>(wire::DurationOfCode(e.dur_code, static_cast<uint32_t>(o.dur_bits)));
      }
      // The gaps see the duration in tick units, rounded down.
      if (o.dur_round_bits >= 0) e.duration = static_cast<uint32_t>((uint64_t{e.duration} << dur_shift) >> o.round_bits);
    }
  State st;
  if (o.table_bits) {
    st.cache.assign(size_t(1) << o.table_bits, {0, 0});
    st.size_of_serial.assign(size_t(o.window), 0);
  }
  std::string whole;
  std::vector<std::pair<std::string, bool>> pieces;
  std::map<std::string, std::string> per_column;
  for (const Batch& b : batches) {
    Columns c;
    EncodeBatch(o, st, b, c);
    size_t batch_bytes = 0;
    const size_t first_piece = pieces.size();
    for (auto& [col, values] : c.column) {
      if (o.free_columns && (col == "sizeF" || col == "stackF") &&
          std::all_of(values.begin(), values.end(), [](uint64_t v) { return v == 0; }))
        continue;  // left out when all 0
      std::string bytes = Serialize(values, o.layout);
      whole += bytes;
      per_column[col] += bytes;
      batch_bytes += bytes.size();
      pieces.push_back({bytes, bytes.size() >= 1024});
    }
    if (batch_bytes < 16 * 1024)
      for (size_t i = first_piece; i < pieces.size(); ++i) pieces[i].second = false;
  }
  size_t total = o.split ? CompressedInPieces(pieces, level) : Compressed(whole, level);
  double sum = 0;
  std::string detail;
  for (auto& [col, bytes] : per_column) {
    double each = double(Compressed(bytes, level)) / events;
    sum += each;
    char buf[64];
    std::snprintf(buf, sizeof(buf), " %s=%.2f", col.c_str(), each);
    detail += buf;
  }
  std::printf("%-40s %5.2f B/event (columns alone %4.2f, raw %5.2f) %s\n", name, double(total) / events, sum,
              double(whole.size()) / events, detail.c_str());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: memframe_encoding_lab CAPTURE.mfc [--level N]\n");
    return 2;
  }
  int level = 1;  // the recorder's (kCaptureZstdLevel)
  if (argc >= 4 && std::strcmp(argv[2], "--level") == 0) level = std::atoi(argv[3]);
  uint64_t file_bytes = 0, other_bytes = 0;
  std::vector<Batch> batches = ReadBatches(argv[1], &file_bytes, &other_bytes);
  uint64_t events = 0;
  for (const Batch& b : batches) events += b.events.size();
  std::printf("%llu events in %zu batches, zstd level %d; file %.2f B/event, other packets alone %.2f B/event\n",
              (unsigned long long)events, batches.size(), level, double(file_bytes) / events,
              double(other_bytes) / events);

  // What a reader adds up of the allocator times: protocol 3's units of 16
  // ticks, protocol 4's log scale of them, against the ticks recorded.
  {
    double exact = 0, v3 = 0, v4 = 0;
    for (const Batch& b : batches)
      for (const Ev& e : b.events) {
        const uint32_t units = wire::ToUnits(e.ticks, e.duration, 4).duration;
        exact += e.duration;
        v3 += double(units) * 16;
        v4 += double(wire::CodeDuration(units, 4).units) * 16;
      }
    std::printf("allocator time summed: %.0f ticks; in units of 16 %+.3f%%, on their log scale %+.3f%%\n", exact,
                100 * (v3 / exact - 1), 100 * (v4 / exact - 1));
  }

  Options o;
  Run("version 1 wire (before issue 6)", o, batches, events, level);
  Options planes = o;
  planes.layout = Layout::kPlanes;
  Run("baseline, byte planes", planes, batches, events, level);
  Options merged = o;
  merged.merge = 65536;
  Run("baseline, batches merged to 64 Ki", merged, batches, events, level);
  Options gap = o;
  gap.tick_gap = 1;
  Run("tick gaps", gap, batches, events, level);

  Options f = o;
  f.free_ref = true;
  Run("free refs (exact, window 64 Ki)", f, batches, events, level);
  for (int bits : {14, 16, 18}) {
    Options t = f;
    t.table_bits = bits;
    std::string name = "free refs (cache 2^" + std::to_string(bits) + ")";
    Run(name.c_str(), t, batches, events, level);
  }
  for (int window : {1 << 12, 1 << 20}) {
    Options t = f;
    t.window = window;
    std::string name = "free refs (exact, window " + std::to_string(window) + ")";
    Run(name.c_str(), t, batches, events, level);
  }
  f.table_bits = 16;
  for (int mode : {1, 2}) {
    Options t = f;
    t.addr_mode = mode;
    Run(mode == 1 ? "free refs + reuse MTF" : "free refs + reuse per class", t, batches, events, level);
  }
  Options best = f;
  best.addr_mode = 2;
  best.size_pred = true;
  Run("  + size by stack", best, batches, events, level);
  best.tick_gap = 2;
  Run("  + tick gaps clamped (lossy)", best, batches, events, level);
  best.tick_gap = 1;
  Run("  + tick gaps", best, batches, events, level);
  best.tick_gap = 3;
  Run("  + tick gaps, escapes", best, batches, events, level);
  // The scheme on the wire (protocol 2), with batches of a thread joined up
  // to each size in `merges`, labelled with `indent`.
  auto with_merges = [&](Options t, const char* indent, std::initializer_list<int> merges) {
    for (int m : merges) {
      t.merge = m;
      std::string name = std::string(indent) + "+ batches merged to " + std::to_string(m);
      Run(name.c_str(), t, batches, events, level);
    }
  };
  Options wire = best;
  wire.addr_prev_all = true;
  Run("  + deltas from every previous address", wire, batches, events, level);
  wire.size_pred = false;
  Run("  - size by stack", wire, batches, events, level);
  with_merges(wire, "  ", {16384, 32768});
  wire.split = true;
  Run("  + blocks ended at columns (the recorder)", wire, batches, events, level);
  with_merges(wire, "    ", {32768, 65536});
  // Protocol 3: a FREE's size and stack in columns of their own, then time
  // in units of 16 ticks; and what was measured beside it and not taken.
  Options v3 = wire;
  v3.free_columns = true;
  Run("    + a FREE's size and stack apart (v3)", v3, batches, events, level);
  v3.round_bits = 4;
  Run("    + time in units of 16 ticks (v3)", v3, batches, events, level);
  for (int bits : {3, 5}) {
    Options r = v3;
    r.round_bits = bits;
    std::string name = "      units of " + std::to_string(1 << bits) + " ticks instead";
    Run(name.c_str(), r, batches, events, level);
  }
  Options k = v3;
  k.by_kind = true;
  Run("      + tick and duration columns by kind", k, batches, events, level);
  k = v3;
  k.size_lohi = true;
  Run("      + sizes in two columns (7 bits, rest)", k, batches, events, level);
  // Protocol 4: allocator times on a log scale; coarser time units beside it.
  for (int bits : {2, 3}) {
    Options d = v3;
    d.dur_bits = bits;
    std::string name = "    + durations' units on a log scale, " + std::to_string(bits) + " bits" + (bits == 3 ? " (v4)" : "");
    Run(name.c_str(), d, batches, events, level);
  }
  for (int bits : {5, 6, 8}) {
    Options d = v3;
    d.dur_bits = 3;
    d.round_bits = bits;
    std::string name = "      + units of " + std::to_string(1 << bits) + " ticks";
    Run(name.c_str(), d, batches, events, level);
  }
  // Protocol 5: the tick unit coarser than the duration's, which stays 16
  // ticks on its log scale.
  for (int bits : {6, 8, 10, 12}) {
    Options d = v3;
    d.dur_bits = 3;
    d.dur_round_bits = 4;
    d.round_bits = bits;
    std::string name = "    + ticks in units of " + std::to_string(1 << bits) + ", durations of 16";
    Run(name.c_str(), d, batches, events, level);
  }
  {
    Options d = v3;
    d.dur_bits = 3;
    d.dur_round_bits = 4;
    d.round_bits = 10;
    d.addr_bump = true;
    Run("      + allocations' addresses from the previous chunk's end", d, batches, events, level);
  }
  Options all = best;
  all.layout = Layout::kPlanes;
  Run("  + byte planes", all, batches, events, level);
  all = best;
  all.merge = 65536;
  Run("  + batches merged to 64 Ki", all, batches, events, level);
  return 0;
}
