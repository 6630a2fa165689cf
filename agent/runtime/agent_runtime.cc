// Start-up and shutdown of the agent inside the host process.
//
// Start: a constructor that runs when the loader maps the agent (before the
// program's own libraries' constructors and main). It resolves the real
// allocator, connects to the recorder named by MEMFRAME_SOCKET and starts the
// writer. With no recorder it stays passive: every hook passes straight
// through.
//
// Fork: the child has no writer thread and shares the parent's socket, so
// it must never write to it. After fork() (an atfork handler) the child
// stops recording (untracked) or, with MEMFRAME_FOLLOW_FORK=1, opens a stream
// of its own. A child made by a raw fork or clone system call runs no
// handler and believes it still records: it goes passive where it would
// wait for the parent's writer, when its first thread's ring fills
// (thread_buffer.cc) and at exit (StopAgent); it never writes to the
// parent's socket. What it allocated before that is not recorded anywhere.
// A vfork child shares the parent's memory and its writer: it leaves the
// parent's state alone.
//
// Exit: a destructor drains what is left and sends EndOfStream. Everything
// before that was already streamed as the program ran, so _exit, a crash or
// SIGKILL lose only the last few milliseconds still in the buffers.
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "buffer/thread_buffer.h"
#include "capture/clock.h"
#include "capture/recorder.h"
#include "capture/stack_capture.h"
#include "capture/stack_table.h"
#include "attach/own_allocator_patch.h"
#include "hooks/allocator_api_hooks.h"
#include "hooks/own_allocator_hooks.h"
#include "hooks/present_hooks.h"
#include "hooks/process_hooks.h"
#include "hooks/real_functions.h"
#include "runtime/agent_runtime.h"
#include "runtime/config.h"
#include "memframe/format.h"
#include "runtime/diagnostics.h"
#include "runtime/own_dependencies.h"
#include "capture/unwinder_pipe.h"
#include "runtime/stream_start.h"
#include "gpu/gpu_queue.h"
#include "writer/module_map.h"
#include "writer/writer_thread.h"

namespace memframe::agent {
namespace {

SocketSink g_sink;
char g_cmdline[8192];

size_t ReadCmdline() {
  int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, g_cmdline, sizeof(g_cmdline));
  close(fd);
  return n > 0 ? static_cast<size_t>(n) : 0;
}

Config g_config;
bool g_attached = false;  // started by memframe_attach, not preloaded

// Connects to the recorder and starts the writer: at start-up, and in a
// fork child that is followed.
void StartRecording() {
  if (!g_sink.Connect(g_config.socket_path)) {
    g_recording.store(false, std::memory_order_release);  // what the buffers hold goes nowhere
    return;
  }
  char executable[4096];
  ssize_t n = readlink("/proc/self/exe", executable, sizeof(executable) - 1);
  executable[n > 0 ? n : 0] = '\0';
  HelloInfo hello{};
  hello.pid = static_cast<uint32_t>(getpid());
  hello.ppid = static_cast<uint32_t>(getppid());
  hello.executable = executable;
  hello.cmdline = g_cmdline;
  hello.cmdline_size = ReadCmdline();
  hello.attached = g_attached;
  if (OwnAllocator().defines_allocator) hello.own_allocator = &OwnAllocator();
  hello.allocator_apis = AllocatorApis(&hello.allocator_api_count);
  // At launch the writer hooks the allocator APIs of libraries loaded later;
  // once attached, the attach thread does (attach_entry.cc).
  if (!StartStream(g_sink, hello, g_config, nullptr, g_attached ? nullptr : HookAllocatorApisOfNewModules)) {
    g_recording.store(false, std::memory_order_release);
    return;
  }
  Debug("recording to %s", g_config.socket_path);
}

// The one list of what a new stream starts without: a followed fork child,
// a failed exec and a second attach each start a stream the recorder
// decodes from nothing. Each Forget* resets every per-stream global of its
// file; StartWriter then resets the event encoder's references (a new
// connection). Kept across streams, as the program is the same: the frame
// counter and what ends frames, the stack and marker tables (ids are
// defined again in the new stream as they are used), the unwinder's cache,
// the hooks and the configuration.
void ForgetStream() {
  ForgetWriterAfterFork();          // its sink, stop flags, counters, stacks and markers sent, threads seen
  ForgetModuleMapAfterFork();       // the modules sent
  ForgetRecorderCountsAfterFork();  // the signal handlers' unrecorded calls, the time slices' numbers
}

// The child of a fork has one thread and no writer, and shares the parent's
// socket: it must never write to it. By default it runs untracked; with
// MEMFRAME_FOLLOW_FORK=1 it opens a stream of its own.
void AfterForkInChild() {
  bool was_recording = g_recording.exchange(false, std::memory_order_relaxed);
  ForgetStream();
  ForgetAllBuffersAfterFork();  // the other threads' buffers can never drain
  ForgetGpuQueueAfterFork();    // nor can the parent's queued GPU events
  g_sink.Close();  // our copy only; the parent's connection stays up
  if (was_recording && g_config.follow_fork) {
    RecursionGuard guard;
    StartRecording();
  }
}

// MEMFRAME_FRAME_SOURCE: "auto", "slices" or the name of one present.
void ApplyFrameSource(const char* source) {
  if (!source || !*source || strcmp(source, "auto") == 0) return;
  if (strcmp(source, "slices") == 0) {
    ConfigureFrameSource(0, true);
    return;
  }
  if (const wire::FrameSource* present = wire::FindFrameSource(source, wire::kFrameLinux)) {
    ConfigureFrameSource(present->wire_id, false);
    return;
  }
  Warn("unknown frame source '%s' (want auto, slices or a present such as glXSwapBuffers); using auto", source);
}

// The capture settings of g_config; false if the stack table cannot be
// reserved.
bool ApplyConfig() {
  if (!ApplyCaptureConfig(g_config)) return false;
  ApplyFrameSource(g_config.frame_source);
  return true;
}

// 0: nothing done yet; 1: in progress; 2: capture set up (recording into the
// thread buffers when a recorder was named); 3: passive.
std::atomic<int> g_early_state{0};

// Everything but the connection: once this ran, hooks record into the
// thread buffers even before the writer exists. Libraries' constructors run
// before the agent's own (the loader initialises dependencies first) and
// allocate; their events wait in the buffers (or are dropped and counted
// if a buffer fills before the writer starts).
void SetUpCapture() {
  int expected = 0;
  if (!g_early_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) {
    while (g_early_state.load(std::memory_order_acquire) == 1) {
    }
    return;
  }
  RecursionGuard guard;  // nothing below is the game's allocation
  InitDiagnostics();
  ResolveRealFunctions();
  g_config = ReadConfig();
  SetDebug(g_config.debug);
  bool ok = g_config.socket_path != nullptr;
  if (!ok) Debug("MEMFRAME_SOCKET is not set; passive");
  if (ok) ok = ApplyConfig();
  if (ok) FindAgentOnlyModules();
  if (ok) g_recording.store(true, std::memory_order_release);
  g_early_state.store(ok ? 2 : 3, std::memory_order_release);
}

__attribute__((constructor(101))) void StartAgent() {
  g_agent_constructed.store(true, std::memory_order_release);
  // Loaded by dlopen into a running process (memframe attach), not by
  // LD_PRELOAD: nothing to do until memframe_attach (agent/attach), and
  // nothing heavy may run in the thread the injector interrupted.
  if (!getenv(wire::kEnvSocket)) return;
  SetUpCapture();
  if (g_early_state.load(std::memory_order_acquire) != 2) return;
  RecursionGuard guard;
  // Here, not in SetUpCapture, which may run inside a program's own
  // allocator (its first mmap): a lookup that misses allocates its error.
  ResolveProcessFunctions();
  ResolveInterceptedFunctions(InterceptLookup::kAfterAgent);
  ResolveAllocatorApis();
  PatchAllocatorApiImports();  // one thread yet: no loader callback is under way
  // Before the writer thread exists (and before main): this thread is the
  // only one that can be inside the executable's malloc.
  HookExecutableAllocator(OwnAllocatorPatching::kAtLaunch);
  pthread_atfork(nullptr, nullptr, AfterForkInChild);
  StartRecording();
}

__attribute__((destructor(101))) void StopAgent() {
  // A copy made by a raw fork or clone: its writer is the parent's (or none);
  // waiting for it would add StopWriter's timeout to the child's exit.
  if (Recording() && !InConsumerProcess()) {
    Debug("not the recording process (a child of a raw fork or clone): exits without waiting for a writer");
    return;
  }
  if (!g_recording.exchange(false)) return;
  RecursionGuard guard;
  StopWriter("exit", 5000);
  // Their events are in the capture, without a call stack: say why.
  if (uint64_t lost = StacksOverflowed())
    Warn("%llu allocations came from new call stacks after the stack table was full (%llu stacks); "
         "they were recorded without a stack",
         static_cast<unsigned long long>(lost), static_cast<unsigned long long>(StackTableCapacity()));
}

bool g_stopped_for_exec = false;

}  // namespace

void BeforeExec() {
  // A vfork child shares our memory: stopping "its" writer would stop the
  // parent's. Only the process that owns the stream ends it.
  if (!InConsumerProcess()) return;
  if (!g_recording.exchange(false)) return;
  RecursionGuard guard;
  StopWriter("exec", 5000);
  g_stopped_for_exec = true;
}

void AfterFailedExec() {
  if (!g_stopped_for_exec) return;
  g_stopped_for_exec = false;
  RecursionGuard guard;
  ForgetStream();
  StartRecording();
}

bool FollowExec() { return g_config.follow_exec; }

int StartAttached(const Config& config) {
  int state = g_early_state.load(std::memory_order_acquire);
  if (Recording() || state == 1) return 1;
  RecursionGuard guard;
  if (state == 0) {
    g_early_state.store(1, std::memory_order_release);
    InitDiagnostics();
    ResolveRealFunctionsGlobalFirst();
    ResolveProcessFunctions();  // the presents: the GOT patcher, in the global scope
    pthread_atfork(nullptr, nullptr, AfterForkInChild);
  } else {
    InitDiagnostics();  // closed at the detach
    ForgetStream();  // an earlier attach's, ended at its detach
  }
  // mi_malloc, mallocx, ...: the GOT patcher's too; at every attach, for a
  // library loaded since the last (the Hello names them).
  ResolveAllocatorApis();
  g_config = config;
  g_attached = true;
  SetDebug(g_config.debug);
  bool ok = g_config.socket_path && ApplyConfig();
  g_early_state.store(ok ? 2 : 3, std::memory_order_release);
  if (!ok) return 2;
  g_recording.store(true, std::memory_order_release);
  // Prepared here, in the Hello that StartRecording sends; memframe writes
  // the jumps with every thread stopped once the attach thread publishes
  // them (attach_entry.cc).
  HookExecutableAllocator(OwnAllocatorPatching::kAtAttach);
  StartRecording();
  return Recording() ? 0 : 2;
}

void StopAttached() {
  if (!g_recording.exchange(false)) return;
  RecursionGuard guard;
  StopWriter("detach", 5000);
  // What only the writer used goes; the threads' rings and the stack table
  // stay (a thread of the game may still be inside a hook), and so do the
  // agent and its libraries (a thread may still return into them).
  ReleaseWriterMemory();
  CloseUnwinderPipe();
}

int RecorderFd() { return g_sink.fd(); }

std::atomic<bool> g_agent_constructed{false};

bool ShouldRecordEarly(const void* caller) {
  if (!StartEarly()) return false;
  return g_agent_constructed.load(std::memory_order_acquire) || !caller ||
         !IsAgentOnlyCode(reinterpret_cast<uintptr_t>(caller));
}

bool StartEarly() {
  if (g_early_state.load(std::memory_order_acquire) >= 2) return Recording();
  SetUpCapture();
  return Recording();
}
}  // namespace memframe::agent
