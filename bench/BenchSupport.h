#pragma once

// Helpers the benchmark programs share.

// A field of /proc/self/status in MB: "VmHWM:" (peak resident set) or "VmRSS:" (current).
double procStatusMb(const char *field);
