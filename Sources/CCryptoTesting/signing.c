#include "CCryptoTesting.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <string.h>

static EVP_PKEY *pkey(const vmh_testing_key *key) { return (EVP_PKEY *)key; }

vmh_testing_key *vmh_testing_generate_key(int kind) {
    switch (kind) {
    case VMH_TESTING_RSA: return (vmh_testing_key *)EVP_PKEY_Q_keygen(NULL, NULL, "RSA", (size_t)2048);
    case VMH_TESTING_P256: return (vmh_testing_key *)EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256");
    case VMH_TESTING_ED25519: return (vmh_testing_key *)EVP_PKEY_Q_keygen(NULL, NULL, "ED25519");
    default: return NULL;
    }
}

void vmh_testing_key_free(vmh_testing_key *key) { EVP_PKEY_free(pkey(key)); }

static int bignum_param(const vmh_testing_key *key, const char *name, uint8_t *out, size_t capacity, size_t *length) {
    BIGNUM *number = NULL;
    if (EVP_PKEY_get_bn_param(pkey(key), name, &number) != 1) return 0;
    size_t size = (size_t)BN_num_bytes(number);
    int ok = size <= capacity && BN_bn2bin(number, out) == (int)size;
    *length = size;
    BN_free(number);
    return ok;
}

int vmh_testing_public_parts(const vmh_testing_key *key, uint8_t *first, size_t first_capacity, size_t *first_length,
                             uint8_t *second, size_t second_capacity, size_t *second_length) {
    *second_length = 0;
    switch (EVP_PKEY_get_base_id(pkey(key))) {
    case EVP_PKEY_RSA:
        return bignum_param(key, OSSL_PKEY_PARAM_RSA_N, first, first_capacity, first_length) &&
               bignum_param(key, OSSL_PKEY_PARAM_RSA_E, second, second_capacity, second_length);
    case EVP_PKEY_EC: {
        uint8_t point[65];
        size_t size = 0;
        if (EVP_PKEY_get_octet_string_param(pkey(key), OSSL_PKEY_PARAM_ENCODED_PUBLIC_KEY, point, sizeof point,
                                            &size) != 1 ||
            size != 65 || first_capacity < 32 || second_capacity < 32) {
            return 0;
        }
        memcpy(first, point + 1, 32);
        memcpy(second, point + 33, 32);
        *first_length = 32;
        *second_length = 32;
        return 1;
    }
    case EVP_PKEY_ED25519:
        *first_length = first_capacity;
        return EVP_PKEY_get_raw_public_key(pkey(key), first, first_length) == 1;
    default: return 0;
    }
}

size_t vmh_testing_sign(const vmh_testing_key *key, const uint8_t *data, size_t length, uint8_t *signature,
                        size_t capacity) {
    int type = EVP_PKEY_get_base_id(pkey(key));
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return 0;
    uint8_t der[512];
    size_t size = sizeof der;
    int ok = EVP_DigestSignInit(context, NULL, type == EVP_PKEY_ED25519 ? NULL : EVP_sha256(), NULL, pkey(key)) == 1 &&
             EVP_DigestSign(context, der, &size, data, length) == 1;
    EVP_MD_CTX_free(context);
    if (!ok) return 0;
    if (type != EVP_PKEY_EC) {
        if (size > capacity) return 0;
        memcpy(signature, der, size);
        return size;
    }
    // JWS's ES256 signature is r || s, 32 bytes each, not DER.
    const unsigned char *cursor = der;
    ECDSA_SIG *pair = d2i_ECDSA_SIG(NULL, &cursor, (long)size);
    if (pair == NULL || capacity < 64) {
        ECDSA_SIG_free(pair);
        return 0;
    }
    ok = BN_bn2binpad(ECDSA_SIG_get0_r(pair), signature, 32) == 32 &&
         BN_bn2binpad(ECDSA_SIG_get0_s(pair), signature + 32, 32) == 32;
    ECDSA_SIG_free(pair);
    return ok ? 64 : 0;
}

int vmh_testing_hs256(const uint8_t *secret, size_t secret_length, const uint8_t *data, size_t length, uint8_t *mac) {
    size_t written = 0;
    return EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, secret, secret_length, data, length, mac, 32, &written) !=
               NULL &&
           written == 32;
}
