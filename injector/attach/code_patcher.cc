#include "attach/code_patcher.h"

#include <sys/ptrace.h>
#include <sys/user.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "attach/traced_threads.h"
#include "memframe/hex.h"

namespace memframe::injector {

namespace {

using Clock = std::chrono::steady_clock;

// Times a thread inside a patch runs alone for a moment to leave it.
constexpr int kMaxSteps = 16;

std::string Refusal(const CodePatch& patch, bool restore, const std::string& why) {
  return patch.name + (restore ? ": its entry not restored by memframe (the agent restores it): " : ": not patched at its entry: ") + why;
}

}  // namespace

bool ResumesInside(const CodePatch& patch, uint64_t ip) {
  return ip > patch.first && ip < patch.first + patch.length;
}

CodePatchResult ApplyCodePatches(pid_t pid, const std::vector<CodePatch>& patches, bool restore) {
  CodePatchResult result;
  if (patches.empty()) return result;
  auto start = Clock::now();
  auto refuse_all = [&](const std::string& why) {
    for (const CodePatch& p : patches) result.refused.push_back(Refusal(p, restore, why));
  };
  TracedThreads traced(pid);
  std::string error;
  if (!traced.SeizeAll(&error) || !traced.WaitAllStopped(&error)) {
    refuse_all(error);
    return result;
  }
  std::vector<CodePatch> pending = patches;
  // The thread seen inside each pending patch at the last try.
  std::vector<pid_t> inside(pending.size(), 0);
  for (result.tries = 1;; ++result.tries) {
    // A thread inside a pending patch runs alone for a moment at a time
    // until it is out (a prologue's instructions are few and run straight
    // on).
    std::vector<pid_t> tids;
    for (const auto& [tid, t] : traced.threads()) tids.push_back(tid);  // a step may change the set
    std::vector<std::pair<pid_t, uint64_t>> ips;
    for (pid_t tid : tids) {
      user_regs_struct regs{};
      uint64_t ip = ptrace(PTRACE_GETREGS, tid, nullptr, &regs) == 0 ? regs.rip : 0;
      auto inside_any = [&](uint64_t at) {
        for (const CodePatch& p : pending)
          if (ResumesInside(p, at)) return true;
        return false;
      };
      for (int step = 0; step < kMaxSteps && inside_any(ip); ++step) {
        ++result.steps;
        if (!traced.RunAlone(tid, &ip)) break;
      }
      ips.emplace_back(tid, ip);
    }
    if (traced.threads().empty()) {
      for (const CodePatch& p : pending) result.refused.push_back(Refusal(p, restore, "the process exited"));
      pending.clear();
      break;
    }
    const pid_t any = traced.threads().begin()->first;
    std::vector<CodePatch> still;
    std::vector<pid_t> still_inside;
    for (const CodePatch& p : pending) {
      pid_t holder = 0;
      for (const auto& [tid, ip] : ips)
        if (ResumesInside(p, ip)) holder = tid;
      if (holder) {
        still.push_back(p);
        still_inside.push_back(holder);
        continue;
      }
      const uint64_t want = restore ? p.to : p.from, put = restore ? p.from : p.to;
      errno = 0;
      const long now = ptrace(PTRACE_PEEKDATA, any, reinterpret_cast<void*>(p.word_at), nullptr);
      if (errno) {
        result.refused.push_back(Refusal(p, restore, "cannot read its code at " + Hex(p.word_at) + ": " + strerror(errno)));
      } else if (static_cast<uint64_t>(now) != want) {
        result.refused.push_back(Refusal(p, restore, std::string("its code changed ") +
                                                (restore ? "since the attach" : "since the agent prepared it")));
      } else if (ptrace(PTRACE_POKEDATA, any, reinterpret_cast<void*>(p.word_at), reinterpret_cast<void*>(put)) != 0) {
        result.refused.push_back(Refusal(p, restore, "cannot write its code at " + Hex(p.word_at) + ": " + strerror(errno)));
      } else {
        result.written.push_back(p);
      }
    }
    pending.swap(still);
    inside.swap(still_inside);
    if (pending.empty() || result.tries >= kCodePatchTries) break;
    // Let the threads inside move on (they run a few instructions).
    if (!traced.RunFor(1, &error)) {
      for (const CodePatch& p : pending) result.refused.push_back(Refusal(p, restore, error));
      pending.clear();
      break;
    }
  }
  for (size_t i = 0; i < pending.size(); ++i)
    result.refused.push_back(Refusal(pending[i], restore, "thread " + std::to_string(inside[i]) + " stayed inside its first " +
                                                     std::to_string(pending[i].length) + " bytes in " +
                                                     std::to_string(kCodePatchTries) + " tries"));
  traced.DetachAll();
  result.stopped_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return result;
}

}  // namespace memframe::injector
