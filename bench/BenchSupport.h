#pragma once

// Helpers the benchmark programs share.

// A field of /proc/self/status in MB: "VmHWM:" (peak resident set) or "VmRSS:" (current).
double procStatusMb(const char *field);

// Starts a new peak: freed memory goes back to the system (glibc malloc_trim), then VmHWM drops to
// the current resident set (Linux: "5" to /proc/self/clear_refs), so a phase's own peak can be
// told from an earlier phase's. False where the kernel does not allow it.
bool resetPeakRss();
