#include "overrides_internal.h"

#include "CLibeventOverrides.h"

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>

/// `c` lowered if it is an ASCII capital, as libevent's `EVUTIL_TOLOWER_` lowers.
static inline unsigned char vmh_ascii_lower(unsigned char c) {
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + ('a' - 'A')) : c;
}

int evutil_ascii_strcasecmp(const char *s1, const char *s2) {
    if (!vmh_overrides_on) {
        typedef int (*strcasecmp_function)(const char *, const char *);
        return VMH_NEXT(strcasecmp_function, "evutil_ascii_strcasecmp")(s1, s2);
    }
    // NB: a header name is usually looked up in the case it was written in ("Content-Length"): equal bytes
    // compare equal folded too, so they are skipped without folding, and folding starts at the first byte that
    // differs.
    while (*s1 == *s2) {
        if (*s1 == '\0') return 0;
        s1++;
        s2++;
    }
    // NB: `char` as libevent compares it (signed here): bytes from 0x80 sort below ASCII, as in its version.
    for (;; s1++, s2++) {
        signed char c1 = (signed char)vmh_ascii_lower((unsigned char)*s1);
        signed char c2 = (signed char)vmh_ascii_lower((unsigned char)*s2);
        if (c1 != c2) return c1 < c2 ? -1 : 1;
        if (c1 == 0) return 0;
    }
}

const char *evhttp_find_header(const struct evkeyvalq *headers, const char *key) {
    if (!vmh_overrides_on) {
        typedef const char *(*find_header_function)(const struct evkeyvalq *, const char *);
        return VMH_NEXT(find_header_function, "evhttp_find_header")(headers, key);
    }
    unsigned char first = vmh_ascii_lower((unsigned char)key[0]);
    for (const struct evkeyval *header = headers->tqh_first; header != NULL; header = header->next.tqe_next) {
        // NB: most names differ in their first byte: those cost no call.
        if (vmh_ascii_lower((unsigned char)header->key[0]) != first) continue;
        if (evutil_ascii_strcasecmp(header->key, key) == 0) return header->value;
    }
    return NULL;
}

void *vmh_evutil_ascii_strcasecmp_definition(void) {
    return (void *)&evutil_ascii_strcasecmp;
}

void *vmh_evhttp_find_header_definition(void) {
    return (void *)&evhttp_find_header;
}
