#ifndef VMHOST_CFUZZERDRIVER_H
#define VMHOST_CFUZZERDRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's entry point for programs with their own `main` (LLVM >= 11): parses libFuzzer's flags from
/// argc/argv and runs `callback` on every input. Defined only when linking with `-sanitize=fuzzer`; the
/// VMHostFuzz target calls it only when built with `-D VMHOST_FUZZ` (see scripts/fuzz).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
