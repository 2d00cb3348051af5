#include "CCrypto.h"

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <string.h>

// The opaque type Swift sees is libcrypto's EVP_PKEY.
static EVP_PKEY *pkey(const vmh_public_key *key) { return (EVP_PKEY *)key; }

/// Builds a public key of `type` ("RSA", "EC") from the parameters in `builder`.
static vmh_public_key *key_from_params(const char *type, OSSL_PARAM_BLD *builder) {
    OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(builder);
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_from_name(NULL, type, NULL);
    EVP_PKEY *result = NULL;
    if (params != NULL && context != NULL && EVP_PKEY_fromdata_init(context) == 1) {
        if (EVP_PKEY_fromdata(context, &result, EVP_PKEY_PUBLIC_KEY, params) != 1) result = NULL;
    }
    EVP_PKEY_CTX_free(context);
    OSSL_PARAM_free(params);
    return (vmh_public_key *)result;
}

vmh_public_key *vmh_rsa_public_key(const uint8_t *n, size_t n_length, const uint8_t *e, size_t e_length) {
    if (n_length == 0 || e_length == 0 || n_length > 2048 || e_length > 8) return NULL;
    BIGNUM *modulus = BN_bin2bn(n, (int)n_length, NULL);
    BIGNUM *exponent = BN_bin2bn(e, (int)e_length, NULL);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    vmh_public_key *result = NULL;
    if (modulus != NULL && exponent != NULL && builder != NULL &&
        OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_N, modulus) == 1 &&
        OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_RSA_E, exponent) == 1) {
        result = key_from_params("RSA", builder);
    }
    OSSL_PARAM_BLD_free(builder);
    BN_free(modulus);
    BN_free(exponent);
    return result;
}

vmh_public_key *vmh_p256_public_key(const uint8_t *x, size_t x_length, const uint8_t *y, size_t y_length) {
    if (x_length != 32 || y_length != 32) return NULL;
    // NB: the uncompressed SEC1 point, 0x04 || x || y, is the form OSSL_PKEY_PARAM_PUB_KEY takes; fromdata
    // checks that it lies on the curve.
    uint8_t point[65];
    point[0] = 0x04;
    memcpy(point + 1, x, 32);
    memcpy(point + 33, y, 32);
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    vmh_public_key *result = NULL;
    if (builder != NULL &&
        OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) == 1 &&
        OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point) == 1) {
        result = key_from_params("EC", builder);
    }
    OSSL_PARAM_BLD_free(builder);
    if (result != NULL) {
        EVP_PKEY_CTX *check = EVP_PKEY_CTX_new_from_pkey(NULL, pkey(result), NULL);
        int valid = check != NULL && EVP_PKEY_public_check(check) == 1;
        EVP_PKEY_CTX_free(check);
        if (!valid) {
            EVP_PKEY_free(pkey(result));
            result = NULL;
        }
    }
    return result;
}

vmh_public_key *vmh_ed25519_public_key(const uint8_t *x, size_t x_length) {
    if (x_length != 32) return NULL;
    return (vmh_public_key *)EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL, x, x_length);
}

int vmh_public_key_rsa_bits(const vmh_public_key *key) {
    if (key == NULL || EVP_PKEY_get_base_id(pkey(key)) != EVP_PKEY_RSA) return 0;
    return EVP_PKEY_get_bits(pkey(key));
}

void vmh_public_key_free(vmh_public_key *key) { EVP_PKEY_free(pkey(key)); }

/// One-shot EVP_DigestVerify with `digest` (NULL for Ed25519, which hashes itself).
static int digest_verify(const vmh_public_key *key, const EVP_MD *digest, const uint8_t *data, size_t length,
                         const uint8_t *signature, size_t signature_length) {
    EVP_MD_CTX *context = EVP_MD_CTX_new();
    if (context == NULL) return 0;
    int valid = EVP_DigestVerifyInit(context, NULL, digest, NULL, pkey(key)) == 1 &&
                EVP_DigestVerify(context, signature, signature_length, data, length) == 1;
    EVP_MD_CTX_free(context);
    return valid;
}

int vmh_verify_rs256(const vmh_public_key *key, const uint8_t *data, size_t length, const uint8_t *signature,
                     size_t signature_length) {
    if (key == NULL || EVP_PKEY_get_base_id(pkey(key)) != EVP_PKEY_RSA) return 0;
    return digest_verify(key, EVP_sha256(), data, length, signature, signature_length);
}

int vmh_verify_es256(const vmh_public_key *key, const uint8_t *data, size_t length, const uint8_t *signature,
                     size_t signature_length) {
    if (key == NULL || EVP_PKEY_get_base_id(pkey(key)) != EVP_PKEY_EC || signature_length != 64) return 0;
    ECDSA_SIG *pair = ECDSA_SIG_new();
    BIGNUM *r = BN_bin2bn(signature, 32, NULL);
    BIGNUM *s = BN_bin2bn(signature + 32, 32, NULL);
    if (pair == NULL || r == NULL || s == NULL || ECDSA_SIG_set0(pair, r, s) != 1) {
        BN_free(r);
        BN_free(s);
        ECDSA_SIG_free(pair);
        return 0;
    }
    unsigned char *der = NULL;
    int der_length = i2d_ECDSA_SIG(pair, &der);
    ECDSA_SIG_free(pair);
    if (der_length <= 0) return 0;
    int valid = digest_verify(key, EVP_sha256(), data, length, der, (size_t)der_length);
    OPENSSL_free(der);
    return valid;
}

int vmh_verify_ed25519(const vmh_public_key *key, const uint8_t *data, size_t length, const uint8_t *signature,
                       size_t signature_length) {
    if (key == NULL || EVP_PKEY_get_base_id(pkey(key)) != EVP_PKEY_ED25519 || signature_length != 64) return 0;
    return digest_verify(key, NULL, data, length, signature, signature_length);
}

int vmh_verify_hs256(const uint8_t *secret, size_t secret_length, const uint8_t *data, size_t length,
                     const uint8_t *signature, size_t signature_length) {
    if (signature_length != 32) return 0;
    uint8_t mac[32];
    size_t written = 0;
    if (EVP_Q_mac(NULL, "HMAC", NULL, "SHA256", NULL, secret, secret_length, data, length, mac, sizeof mac,
                  &written) == NULL ||
        written != sizeof mac) {
        return 0;
    }
    return CRYPTO_memcmp(mac, signature, sizeof mac) == 0;
}
