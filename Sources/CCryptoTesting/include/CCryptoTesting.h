#ifndef VMHOST_CCRYPTO_TESTING_H
#define VMHOST_CCRYPTO_TESTING_H

// Key generation and JWT signing by libcrypto, for tests only: they mint the tokens the server checks. The server
// never signs (CCrypto only verifies).

#include <stddef.h>
#include <stdint.h>

/// The kinds of test keys.
enum vmh_testing_key_kind { VMH_TESTING_RSA = 1, VMH_TESTING_P256 = 2, VMH_TESTING_ED25519 = 3 };

/// A private key (an `EVP_PKEY` inside).
typedef struct vmh_testing_key vmh_testing_key;

/// Generates a key of `kind` (RSA: 2048 bits); NULL on failure.
vmh_testing_key *vmh_testing_generate_key(int kind);

/// Frees a key.
void vmh_testing_key_free(vmh_testing_key *key);

/// The public part as a JWK's fields, big-endian bytes: RSA `n` into `first` and `e` into `second`; P-256 `x` and
/// `y`; Ed25519 `x` into `first` (`second_length` 0). Returns 1, or 0 when a buffer is too small.
int vmh_testing_public_parts(const vmh_testing_key *key, uint8_t *first, size_t first_capacity, size_t *first_length,
                             uint8_t *second, size_t second_capacity, size_t *second_length);

/// Signs `data` as JWS does for the key's algorithm (RS256, ES256 as raw r || s, EdDSA) into `signature`.
/// Returns the signature's length, or 0 on failure.
size_t vmh_testing_sign(const vmh_testing_key *key, const uint8_t *data, size_t length, uint8_t *signature,
                        size_t capacity);

/// HMAC-SHA-256 of `data` under `secret` into `mac` (32 bytes). Returns 1, or 0 on failure.
int vmh_testing_hs256(const uint8_t *secret, size_t secret_length, const uint8_t *data, size_t length, uint8_t *mac);

#endif
