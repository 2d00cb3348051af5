#include "CCrypto.h"

#include <openssl/evp.h>

int vmh_sha256(const uint8_t *data, size_t length, uint8_t *digest) {
    unsigned int written = 0;
    return EVP_Digest(data, length, digest, &written, EVP_sha256(), NULL) == 1 && written == VMH_SHA256_LENGTH;
}
