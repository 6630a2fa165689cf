#include "memframe/analysis/summary_index.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "memframe/analysis/summary_load.h"
#include "summary_index_codec.h"

#ifndef MEMFRAME_VERSION
#define MEMFRAME_VERSION "unknown"
#endif

namespace memframe::analysis {

namespace {

constexpr char kMagic[8] = {'M', 'F', 'I', 'N', 'D', 'E', 'X', '\n'};
constexpr size_t kHeaderSize = 56;
constexpr uint64_t kStampSpan = 64 * 1024;  // bytes hashed at each end of the capture
constexpr size_t kMaxProducer = 64;

// A word-at-a-time 64-bit hash: it tells a changed or different capture (or
// a damaged payload) from the one indexed, not a forgery from a friend.
uint64_t Hash64(const char* p, size_t n, uint64_t seed) {
  constexpr uint64_t kMul1 = 0x9E3779B97F4A7C15ull, kMul2 = 0xC2B2AE3D27D4EB4Full;
  uint64_t h = seed ^ (n * kMul1);
  for (; n >= 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ (w * kMul2)) * kMul1;
    h ^= h >> 31;
  }
  uint64_t w = 0;
  std::memcpy(&w, p, n);
  h = (h ^ (w * kMul2)) * kMul1;
  h ^= h >> 29;
  h *= kMul2;
  return h ^ (h >> 32);
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

bool ReadAt(int fd, char* buf, size_t n, uint64_t offset) {
  while (n > 0) {
    ssize_t got = pread(fd, buf, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    buf += got, n -= static_cast<size_t>(got), offset += static_cast<uint64_t>(got);
  }
  return true;
}

bool WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t put = write(fd, p, n);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    p += put, n -= static_cast<size_t>(put);
  }
  return true;
}

void PutU64(std::string& out, size_t at, uint64_t v) { std::memcpy(&out[at], &v, 8); }
uint64_t GetU64(const std::string& in, size_t at) {
  uint64_t v;
  std::memcpy(&v, &in[at], 8);
  return v;
}

// Header, little-endian as the machines that write captures are:
// magic[8] format:u32 producer_len:u32 size head_hash tail_hash
// payload_size payload_hash (u64 each), then the producer, then the payload.
std::string Header(const CaptureStamp& stamp, const std::string& payload) {
  std::string producer = MEMFRAME_VERSION;
  producer.resize(std::min(producer.size(), kMaxProducer));
  std::string h(kHeaderSize, '\0');
  std::memcpy(&h[0], kMagic, 8);
  uint32_t format = kSummaryIndexFormat, producer_len = static_cast<uint32_t>(producer.size());
  std::memcpy(&h[8], &format, 4);
  std::memcpy(&h[12], &producer_len, 4);
  PutU64(h, 16, stamp.size);
  PutU64(h, 24, stamp.head_hash);
  PutU64(h, 32, stamp.tail_hash);
  PutU64(h, 40, payload.size());
  PutU64(h, 48, Hash64(payload.data(), payload.size(), 0));
  return h + producer;
}

// Whether the file at `path` is an index (ours to replace) or absent.
enum class Existing { kAbsent, kIndex, kForeign };
Existing Inspect(const std::string& path) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) return errno == ENOENT ? Existing::kAbsent : Existing::kForeign;
  if (!S_ISREG(st.st_mode)) return Existing::kForeign;
  Fd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  char magic[8];
  if (fd.get() < 0 || !ReadAt(fd.get(), magic, 8, 0) || std::memcmp(magic, kMagic, 8) != 0) return Existing::kForeign;
  return Existing::kIndex;
}

}  // namespace

std::string SummaryIndexPath(const std::string& capture_path) { return capture_path + ".mfi"; }

CaptureStamp StampCapture(const std::string& capture_path) {
  CaptureStamp stamp;
  Fd fd(open(capture_path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (fd.get() < 0 || fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return stamp;
  stamp.size = static_cast<uint64_t>(st.st_size);
  const size_t span = static_cast<size_t>(std::min(stamp.size, kStampSpan));
  std::string buf(span, '\0');
  if (!ReadAt(fd.get(), buf.data(), span, 0)) return stamp;
  stamp.head_hash = Hash64(buf.data(), span, 1);
  if (!ReadAt(fd.get(), buf.data(), span, stamp.size - span)) return stamp;
  stamp.tail_hash = Hash64(buf.data(), span, 2);
  stamp.valid = true;
  return stamp;
}

SummaryIndexRead ReadSummaryIndex(const std::string& capture_path, Capture* capture, HeapAnalysis* heap,
                                  std::string* why, std::optional<ViewerSummary>* viewer) {
  const std::string path = SummaryIndexPath(capture_path);
  Fd fd(open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return SummaryIndexRead::kAbsent;
    *why = std::string("cannot be read: ") + std::strerror(errno);
    return SummaryIndexRead::kRefused;
  }
  auto refuse = [&](const std::string& reason) {
    *why = reason;
    return SummaryIndexRead::kRefused;
  };
  struct stat st {};
  if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) return refuse("not a regular file");
  std::string header(kHeaderSize, '\0');
  if (!ReadAt(fd.get(), header.data(), kHeaderSize, 0) || std::memcmp(header.data(), kMagic, 8) != 0)
    return refuse("not a summary index");
  uint32_t format, producer_len;
  std::memcpy(&format, &header[8], 4);
  std::memcpy(&producer_len, &header[12], 4);
  if (format != kSummaryIndexFormat) return refuse("index format " + std::to_string(format) + ", not " +
                                                   std::to_string(kSummaryIndexFormat));
  if (producer_len > kMaxProducer) return refuse("damaged header");
  std::string producer(producer_len, '\0');
  if (!ReadAt(fd.get(), producer.data(), producer_len, kHeaderSize)) return refuse("truncated");
  if (producer != std::string(MEMFRAME_VERSION).substr(0, kMaxProducer))
    return refuse("written by memframe " + producer + ", not " + MEMFRAME_VERSION);
  const CaptureStamp now = StampCapture(capture_path);
  if (!now.valid) return refuse("the capture cannot be read");
  const CaptureStamp indexed{true, GetU64(header, 16), GetU64(header, 24), GetU64(header, 32)};
  if (!(indexed == now)) return refuse("it describes another capture, or this one before it changed");
  // A payload bigger than the file says, or than any capture of this size
  // could need, is refused before anything is allocated for it.
  const uint64_t payload_size = GetU64(header, 40);
  const uint64_t file_size = static_cast<uint64_t>(st.st_size);
  if (payload_size != file_size - kHeaderSize - producer_len || file_size < kHeaderSize + producer_len)
    return refuse("its size does not match its header");
  if (payload_size > 4 * now.size + (64u << 20)) return refuse("larger than any index of this capture");
  std::string payload;
  try {
    payload.resize(payload_size);
  } catch (const std::bad_alloc&) {
    return refuse("no memory to read it");
  }
  if (!ReadAt(fd.get(), payload.data(), payload.size(), kHeaderSize + producer_len)) return refuse("truncated");
  if (Hash64(payload.data(), payload.size(), 0) != GetU64(header, 48)) return refuse("damaged (hash mismatch)");
  std::string error;
  try {
    if (!DecodeSummaryPayload(payload, capture, heap, &error, viewer)) return refuse("damaged (" + error + ")");
  } catch (const std::bad_alloc&) {
    return refuse("no memory to read it");
  }
  capture->path = capture_path;
  return SummaryIndexRead::kUsed;
}

bool WriteSummaryIndex(const std::string& capture_path, const CaptureStamp& stamp, const Capture& capture,
                       const HeapAnalysis& heap, std::string* why, const ViewerSummary* viewer) {
  why->clear();
  // A capture still being written, or rewritten while it was read: an index
  // of what was read would not describe what is there.
  if (!stamp.valid || !(StampCapture(capture_path) == stamp)) return false;
  const std::string path = SummaryIndexPath(capture_path);
  const Existing existing = Inspect(path);
  if (existing == Existing::kForeign) {
    *why = path + " is not a summary index: left as it is";
    return false;
  }
  std::string payload = EncodeSummaryPayload(capture, heap, viewer);
  std::string tmp = path + ".XXXXXX";
  int raw = mkostemp(tmp.data(), O_CLOEXEC);  // mode 0600
  if (raw < 0) return false;  // a read-only directory: no index, nothing to say
  Fd fd(raw);
  const std::string header = Header(stamp, payload);
  bool ok = WriteAll(fd.get(), header.data(), header.size()) && WriteAll(fd.get(), payload.data(), payload.size());
  ok = ok && fsync(fd.get()) == 0;
  // Replace only an index; where there was nothing, link() refuses to
  // replace whatever appeared in the meantime.
  if (ok) ok = existing == Existing::kIndex ? rename(tmp.c_str(), path.c_str()) == 0
                                            : link(tmp.c_str(), path.c_str()) == 0;
  if (!ok || existing != Existing::kIndex) unlink(tmp.c_str());
  return ok;
}

bool LoadSummaryIndexed(const std::string& path, Capture* capture, HeapAnalysis* heap, std::string* error,
                        const LoadProgressFn& progress, std::string* note) {
  std::string why;
  switch (ReadSummaryIndex(path, capture, heap, &why)) {
    case SummaryIndexRead::kUsed:
      if (progress) progress({LoadProgress::Phase::kDone, 0, 0});
      return true;
    case SummaryIndexRead::kRefused:
      if (note) *note = SummaryIndexPath(path) + " not used: " + why + "; reading the whole capture";
      *capture = Capture();
      *heap = HeapAnalysis();
      break;
    case SummaryIndexRead::kAbsent:
      break;
  }
  const CaptureStamp stamp = StampCapture(path);
  if (!LoadSummary(path, capture, heap, error, progress)) return false;
  if (capture->has_main && WriteSummaryIndex(path, stamp, *capture, *heap, &why) == false && note && !why.empty())
    *note += (note->empty() ? "" : "\n") + why;
  return true;
}

}  // namespace memframe::analysis
