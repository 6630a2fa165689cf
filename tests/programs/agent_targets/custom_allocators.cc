// A game with allocators of its own, declared through the annotation header
// (custom_allocators_truth.h says what it does). Runs the same without
// memframe.
#include <pthread.h>
#include <semaphore.h>

#include <cstdio>
#include <cstdlib>

#include "custom_allocators_truth.h"
#include "memframe/annotate.h"

using namespace memframe::targets::custom_allocators;

namespace {

char* Slab(size_t capacity) { return static_cast<char*>(malloc(kAllocatorHeader + capacity)); }

// Each allocator keeps its bookkeeping in the first kAllocatorHeader bytes
// of its slab and declares the rest.
struct Region {
  explicit Region(size_t capacity) : slab(Slab(capacity)), base(slab + kAllocatorHeader) {}
  char* slab;
  char* base;
};

struct FrameArena : Region {
  FrameArena() : Region(kArenaCapacity), id(memframe_allocator_declare(kArenaName, MEMFRAME_FRAME_ARENA, base, kArenaCapacity)) {}
  unsigned id;
  size_t used = 0;

  void* Allocate(size_t size) {
    void* p = base + used;
    used += size;
    memframe_custom_alloc(p, size);
    return p;
  }
  void Reset() {
    used = 0;
    memframe_allocator_reset(id);
  }
};

struct ParticlePool : Region {
  ParticlePool() : Region(kPoolCapacity), id(memframe_allocator_declare(kPoolName, MEMFRAME_POOL, base, kPoolCapacity)) {
    FillSlots();
  }
  unsigned id;
  void* free_slots[kPoolSlots];
  size_t free_count = 0;

  void FillSlots() {
    for (free_count = 0; free_count < kPoolSlots; ++free_count)
      free_slots[free_count] = base + (kPoolSlots - 1 - free_count) * kPoolSlot;
  }
  void Clear() {
    FillSlots();
    memframe_allocator_reset(id);
  }
  void* Take() {
    void* p = free_slots[--free_count];
    memframe_custom_alloc(p, kPoolSlot);
    return p;
  }
  void Give(void* p) {
    memframe_custom_free(p);
    free_slots[free_count++] = p;
  }
};

struct AudioRing : Region {
  AudioRing() : Region(kRingCapacity), id(memframe_allocator_declare(kRingName, MEMFRAME_RING, base, kRingCapacity)) {}
  unsigned id;
  size_t head = 0, tail = 0;  // blocks pushed and popped

  void Push() { memframe_custom_alloc(base + (head++ % kRingSlots) * kRingSlot, kRingSlot); }
  void Pop() { memframe_custom_free(base + (tail++ % kRingSlots) * kRingSlot); }
};

// The audio thread (kAudioThreadName) feeds the ring: one step a frame,
// in lock-step with the main thread, so the frames are the same as if the
// main thread did it.
struct AudioThread {
  explicit AudioThread(AudioRing& r) : ring(r) {
    sem_init(&go, 0, 0);
    sem_init(&done, 0, 0);
    pthread_create(&thread, nullptr, Main, this);
  }
  // Runs one step on the audio thread and waits for it.
  void Run(int step) {
    next = step;
    sem_post(&go);
    while (sem_wait(&done) != 0) {
    }
  }
  void Stop() {
    Run(kStop);
    pthread_join(thread, nullptr);
  }

  static constexpr int kDrain = -1, kStop = -2;
  static void* Main(void* self) {
    pthread_setname_np(pthread_self(), kAudioThreadName);
    auto* audio = static_cast<AudioThread*>(self);
    for (;;) {
      while (sem_wait(&audio->go) != 0) {
      }
      const int step = audio->next;
      AudioRing& ring = audio->ring;
      if (step == kDrain) {
        while (ring.tail < ring.head) ring.Pop();
      } else if (step >= 0) {
        if (step >= kRingDelay) ring.Pop();
        ring.Push();
      }
      sem_post(&audio->done);
      if (step == kStop) return nullptr;
    }
  }

  AudioRing& ring;
  sem_t go, done;
  int next = 0;
  pthread_t thread;
};

}  // namespace

int main() {
  FrameArena arena;
  ParticlePool pool;
  AudioRing ring;
  AudioThread audio(ring);
  void* particles[kFrames][kParticlesPerFrame] = {};
  void* kept = nullptr;
  volatile char sink = 0;
  for (int frame = 0; frame < kFrames; ++frame) {
    if (kept) {
      memframe_custom_free(kept);  // the arena was reset since: a dangling block
      kept = nullptr;
    }
    for (size_t size : kArenaBlockSizes) {
      char* block = static_cast<char*>(arena.Allocate(size));
      block[0] = 1;
      sink = sink + block[0];
      if (frame == kOutlivedFrame && size == kOutlivedSize) kept = block;
    }
    const int expired = frame - kParticleLife;
    if (expired >= 0 && expired >= kPoolClearFrame - kParticleLife + 1 && expired < kPoolClearFrame) {
      // cleared with the pool
    } else if (expired >= 0) {
      for (void* p : particles[expired]) pool.Give(p);
    }
    if (frame == kPoolClearFrame) pool.Clear();
    for (void*& p : particles[frame]) p = pool.Take();
    audio.Run(frame);
    arena.Reset();
    memframe_frame_mark();
  }
  audio.Run(AudioThread::kDrain);
  audio.Stop();
  free(arena.slab);
  free(pool.slab);
  free(ring.slab);
  std::printf("custom allocators: %d frames\n", kFrames);
  return 0;
}
