#ifndef VMHOST_CCRYPTO_H
#define VMHOST_CCRYPTO_H

// Typed entry points into OpenSSL's libcrypto (already loaded through libcurl): digests and signature checks
// are the library's, never code of ours. OpenSSL's own headers stay in the .c files, so Swift sees only these.

#include <stddef.h>
#include <stdint.h>

/// The length of a SHA-256 digest.
#define VMH_SHA256_LENGTH 32

/// SHA-256 of `length` bytes at `data` into `digest` (32 bytes). Returns 1, or 0 if libcrypto failed.
int vmh_sha256(const uint8_t *data, size_t length, uint8_t *digest);

#endif
