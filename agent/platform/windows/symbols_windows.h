// Names for the return addresses of the stacks, from DbgHelp, sent in the
// capture (SymbolDefs, FORMAT.md "Streams of the Windows agent"): DbgHelp
// reads PDB files on Windows and, under Wine, the DWARF 4 of MinGW builds,
// neither of which the Linux analysis can.
#pragma once

namespace memframe::agent {

class SocketSink;

// Resolves every return address of the stacks interned so far. Called by
// the thread that stops the agent, before StopWriter: DbgHelp takes the
// loader lock, which a game thread may hold while it waits for room in its
// ring, so the writer must go on draining meanwhile.
void ResolveStackSymbols();

// The writer's last packets (WriterOptions::final_packets): what
// ResolveStackSymbols found.
void EncodeStackSymbols(SocketSink& sink);

}  // namespace memframe::agent
