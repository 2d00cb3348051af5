// The private fields of `struct evhttp_request` (event2/http_struct.h) that this target reads or writes, with
// the offsets they have in libevent 2.1.12-stable on LP64 (x86_64, aarch64). A libevent whose struct moved
// any of them fails the build here instead of corrupting requests: check each use in shim.c, header_lines.c
// and request_checks.c against the new header, then update these numbers. (`chunked` is a bit-field, which
// offsetof cannot name: the fields on either side of it pin its place.) At run time, CLibeventOverrides
// compares the loaded libevent's version with the one these were written for.

#include "CLibeventShims.h"

#include <event2/http.h>
#include <event2/http_struct.h>
#include <stddef.h>

#if defined(__LP64__)
#define VMH_FIELD_AT(field, offset)                                                    \
    _Static_assert(offsetof(struct evhttp_request, field) == (offset),                 \
                   "struct evhttp_request." #field " moved: this libevent is not the 2.1.12 the shims were " \
                   "written for")
VMH_FIELD_AT(evcon, 16);
VMH_FIELD_AT(input_headers, 32);
VMH_FIELD_AT(remote_host, 48);
VMH_FIELD_AT(host_cache, 64);
VMH_FIELD_AT(type, 76);
VMH_FIELD_AT(uri, 96);
VMH_FIELD_AT(uri_elems, 104);
VMH_FIELD_AT(major, 112);
VMH_FIELD_AT(minor, 113);
VMH_FIELD_AT(response_code_line, 120);
VMH_FIELD_AT(input_buffer, 128);
VMH_FIELD_AT(ntoread, 136);
VMH_FIELD_AT(output_buffer, 152);
_Static_assert(sizeof(struct evhttp_request) == 216, "struct evhttp_request changed size");
#endif
