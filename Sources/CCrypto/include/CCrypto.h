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

// JWT signature checks (Sources/Auth). NB: libcrypto rather than vapor/jwt-kit: jwt-kit brings Foundation, which
// the server deliberately does not link (its RSS at start, docs/performance.md), while libcrypto is in the
// process already through libcurl. Every check is libcrypto's own; these functions only shape the inputs. The
// first key or token initialises OpenSSL 3's algorithms (~2.4 MB of RSS, measured on a release build), which the
// first TLS upstream transfer initialises anyway: with https upstreams, auth adds ~0.1 MB.

/// A public key for signature checks (an `EVP_PKEY` inside); free with `vmh_public_key_free`.
typedef struct vmh_public_key vmh_public_key;

/// An RSA public key from its modulus and exponent (big-endian bytes, as in a JWK's `n` and `e`); NULL when
/// libcrypto refuses them.
vmh_public_key *vmh_rsa_public_key(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length);

/// A P-256 public key from its affine coordinates (32 bytes each, a JWK's `x` and `y`); NULL when the point is not
/// on the curve.
vmh_public_key *vmh_p256_public_key(const uint8_t *x, size_t x_length, const uint8_t *y, size_t y_length);

/// An Ed25519 public key from its 32 bytes (a JWK's `x`); NULL otherwise.
vmh_public_key *vmh_ed25519_public_key(const uint8_t *x, size_t x_length);

/// The size of an RSA key's modulus in bits (0 for other keys).
int vmh_public_key_rsa_bits(const vmh_public_key *key);

/// Frees a key (NULL is allowed).
void vmh_public_key_free(vmh_public_key *key);

/// RS256: RSASSA-PKCS1-v1_5 with SHA-256. Returns 1 when `signature` is valid for `data` under `key`, else 0.
int vmh_verify_rs256(const vmh_public_key *key, const uint8_t *data, size_t length, const uint8_t *signature,
                     size_t signature_length);

/// ES256: ECDSA P-256 with SHA-256; `signature` is JWS's raw `r || s` (64 bytes), turned into DER for libcrypto.
/// Returns 1 when valid, else 0.
int vmh_verify_es256(const vmh_public_key *key, const uint8_t *data, size_t length, const uint8_t *signature,
                     size_t signature_length);

/// EdDSA with an Ed25519 key. Returns 1 when valid, else 0.
int vmh_verify_ed25519(const vmh_public_key *key, const uint8_t *data, size_t length, const uint8_t *signature,
                       size_t signature_length);

/// HS256: HMAC-SHA-256 of `data` under `secret`, compared in constant time (CRYPTO_memcmp) with `signature`.
/// Returns 1 when equal, else 0.
int vmh_verify_hs256(const uint8_t *secret, size_t secret_length, const uint8_t *data, size_t length,
                     const uint8_t *signature, size_t signature_length);

#endif
