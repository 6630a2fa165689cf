// `memframe run [options] [--] PROGRAM [ARGS...]`: launches PROGRAM with the
// agent preloaded, records every agent that connects into a capture file,
// prints a summary and exits with the program's status.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "memframe.pb.h"
#include "memframe/agent_settings.h"
#include "memframe/command_line.h"

namespace memframe::wire {
class CaptureWriter;
}

namespace memframe::injector {

class AgentSocket;
class LiveServer;
class Recorder;

struct RunOptions {
  std::string output;                // "" = memframe-<program>-<pid>.mfc in the cwd
  bool force = false;                // replace an existing output file
  bool summary = true;
  // What the agent is asked (memframe/agent_settings.h); its text settings
  // are kept below and set when the settings are written.
  wire::AgentSettings agent_settings;
  std::string frame_source;          // "" = auto; "slices"; or a present's name
  std::string agent;                 // "" = $MEMFRAME_AGENT, else next to this binary
  bool tcp = false;                  // preload nothing; agents connect to MEMFRAME_TCP (Windows, Wine)
  bool live_socket = true;           // offer the live socket to viewers (--no-live: not)
  bool launch_viewer = false;        // --live: start memframe-viewer --follow on it
  uint64_t keep_last_ms = 0;         // --keep-last: keep only this long a window (0: all of the run)
  std::vector<std::string> command;  // PROGRAM and its arguments
};

enum class RunParse { kRun, kHelp, kError };

// Options end at "--" or at the first argument that is not an option; the
// rest is the command, passed through untouched.
RunParse ParseRunArguments(const std::vector<std::string>& args, RunOptions* options, std::string* error);
void PrintRunUsage(std::ostream& out);
// The options `memframe run` and `memframe attach` share (how to record),
// stored into *options as they are read.
std::vector<CommandOption> RecordingOptions(RunOptions* options);

// The agent settings of `options` that differ from the agent's defaults, as
// NAME=VALUE pairs for `session` (an attach leaves out the launch-only
// ones, agent_settings.h says why): `memframe run` passes them in the environment,
// `memframe attach` in its settings file.
std::vector<std::pair<std::string, std::string>> AgentSettingEntries(const RunOptions& options,
                                                                     const std::string& socket_path,
                                                                     wire::Session session);

// Parses `args` (what follows "run") and runs; returns the exit status.
int RunCommand(const std::vector<std::string>& args);

// What `memframe run` and `memframe attach` share.
uint64_t UnixNanoseconds();
// The agent library (--agent, $MEMFRAME_AGENT, or beside memframe), made
// absolute; false with a message if it is not there.
bool ResolveAgent(const RunOptions& options, std::string* agent, std::string* error);
std::string AbsolutePath(const std::string& path);
// The live socket beside the agents' one; null (said on stderr) if none.
std::unique_ptr<LiveServer> StartLiveServer(const AgentSocket& socket, const std::string& capture_path);
// --live: memframe-viewer following `socket_path`.
void LaunchViewer(const std::string& socket_path);
// Removes a capture this run created that holds nothing of the program.
void DiscardCapture(wire::CaptureWriter& capture);
enum class FinishCaptureSummary { kNone, kPrint };
// Writes the closing record (`info`, marked finished), closes the capture,
// ends the live stream and prints the summary; false if the capture is
// incomplete (said on stderr).
// `kept` (may be null): the summary kept while recording (live_summary.h).
class LiveSummary;
bool FinishCapture(wire::CaptureWriter& capture, Recorder& recorder, LiveServer* live, wire::RecorderInfo info,
                   FinishCaptureSummary summary, LiveSummary* kept = nullptr);

}  // namespace memframe::injector
