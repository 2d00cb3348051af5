#include "CLibraryOptions.h"

// NB: GnuTLS initializes itself when it is loaded (a constructor calling `gnutls_global_init`: its ciphers,
// ASN.1 trees, random generator, PKCS #11 through p11-kit) unless `_gnutls_global_init_skip()` returns 1 (or
// `GNUTLS_NO_IMPLICIT_INIT=1` is set). Its own definition is weak and called through the PLT, so it binds to
// this one when the executable exports it (Package.swift: `dynamicSymbols`). vmhost never calls GnuTLS: libcurl
// does TLS with OpenSSL, and GnuTLS is loaded only as a dependency of libcurl's librtmp and libldap, protocols
// vmhost's client does not allow; a library that does use it calls `gnutls_global_init` itself. The
// initialization cost ~1 MB of resident memory for nothing (docs/performance.md, tenth stop).
int _gnutls_global_init_skip(void) { return 1; }
