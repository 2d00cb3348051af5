#include "CLibeventShims.h"

#include <event2/http.h>
#include <event2/http_struct.h>
#include <event2/keyvalq_struct.h>
#include <event2/util.h>

#include <string.h>

/// RFC 9110 `tchar`: the bytes a header name may hold (no space, no separators, no controls).
static const unsigned char vmh_token_bytes[256] = {
    ['!'] = 1, ['#'] = 1, ['$'] = 1, ['%'] = 1, ['&'] = 1, ['\''] = 1, ['*'] = 1, ['+'] = 1, ['-'] = 1, ['.'] = 1,
    ['^'] = 1, ['_'] = 1, ['`'] = 1, ['|'] = 1, ['~'] = 1,
    ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1, ['J'] = 1,
    ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1,
    ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
    ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1, ['j'] = 1,
    ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1,
    ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

static int vmh_is_digits(const char *value) {
    if (*value == '\0') return 0;
    for (; *value != '\0'; value++) {
        if (*value < '0' || *value > '9') return 0;
    }
    return 1;
}

const char *vmh_evhttp_request_framing_error(const struct evhttp_request *req) {
    const char *content_length = NULL;
    int transfer_encodings = 0;
    for (const struct evkeyval *header = req->input_headers->tqh_first; header != NULL;
         header = header->next.tqe_next) {
        const unsigned char *name = (const unsigned char *)header->key;
        const unsigned char *end = name;
        while (vmh_token_bytes[*end]) end++;
        if (*end != '\0' || end == name) return "a header name that is not a token";
        // NB: only the two names that frame a body are compared (most names differ in their first byte).
        unsigned char first = name[0] | 0x20;
        size_t length = (size_t)(end - name);
        if (first == 'c' && length == 14 && evutil_ascii_strcasecmp(header->key, "Content-Length") == 0) {
            if (!vmh_is_digits(header->value)) return "a Content-Length that is not a decimal number";
            if (content_length != NULL && strcmp(content_length, header->value) != 0) {
                return "conflicting Content-Length headers";
            }
            content_length = header->value;
        } else if (first == 't' && length == 17 && evutil_ascii_strcasecmp(header->key, "Transfer-Encoding") == 0) {
            transfer_encodings++;
            if (evutil_ascii_strcasecmp(header->value, "chunked") != 0) {
                return "a Transfer-Encoding other than chunked";
            }
        }
    }
    if (transfer_encodings > 1) return "several Transfer-Encoding headers";
    if (transfer_encodings == 1 && (req->major != 1 || req->minor < 1)) {
        return "Transfer-Encoding in a request older than HTTP/1.1";
    }
    return NULL;
}

int vmh_evhttp_request_body_is_chunked(const struct evhttp_request *req) {
    return req->chunked;
}

void vmh_evhttp_request_default_version(struct evhttp_request *req) {
    if (req->major == 0) {
        req->major = 1;
        req->minor = 1;
    }
}
