#include "CLibeventShims.h"

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/http_struct.h>
#include <event2/keyvalq_struct.h>
#include <string.h>

/// The most bytes one call formats on the stack; longer results go to libevent's own `vprintf` path.
enum { VMH_FORMAT_CAPACITY = 512 };

/// The most bytes `vmh_format_decimal` writes: a sign, 20 digits and the terminating NUL.
enum { VMH_DECIMAL_CAPACITY = 22 };

/// Writes `magnitude` in decimal, after a `-` when `negative`, and a NUL to `out`; returns the length without
/// the NUL.
static size_t vmh_format_decimal(char out[VMH_DECIMAL_CAPACITY], int negative, unsigned long magnitude) {
    char reversed[20];
    size_t count = 0;
    do {
        reversed[count++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    size_t length = 0;
    if (negative) out[length++] = '-';
    while (count > 0) out[length++] = reversed[--count];
    out[length] = '\0';
    return length;
}

/// Writes `fmt` with its `%s`, `%d` and `%%` conversions (no flags, width or precision) to `out`. Returns the
/// length, or -1 when `fmt` has any other conversion, a `%s` argument is NULL, or the result needs more than
/// `capacity` bytes: the caller then formats with `vprintf` from an untouched copy of the arguments.
static int vmh_format(char *out, size_t capacity, const char *fmt, va_list ap) {
    size_t length = 0;
    for (const char *p = fmt; *p != '\0'; p++) {
        if (*p != '%') {
            if (length == capacity) return -1;
            out[length++] = *p;
            continue;
        }
        p++;
        if (*p == 's') {
            const char *text = va_arg(ap, const char *);
            if (text == NULL) return -1;
            size_t count = strlen(text);
            if (count > capacity - length) return -1;
            memcpy(out + length, text, count);
            length += count;
        } else if (*p == 'd') {
            int value = va_arg(ap, int);
            char digits[VMH_DECIMAL_CAPACITY];
            size_t count = vmh_format_decimal(digits, value < 0, value < 0 ? 0u - (unsigned)value : (unsigned)value);
            if (count > capacity - length) return -1;
            memcpy(out + length, digits, count);
            length += count;
        } else if (*p == '%') {
            if (length == capacity) return -1;
            out[length++] = '%';
        } else {
            return -1;
        }
    }
    return (int)length;
}

int vmh_evbuffer_add_vformat(struct evbuffer *buffer, const char *fmt, va_list ap) {
    char out[VMH_FORMAT_CAPACITY];
    va_list attempt;
    va_copy(attempt, ap);
    int length = vmh_format(out, sizeof out, fmt, attempt);
    va_end(attempt);
    if (length < 0) return evbuffer_add_vprintf(buffer, fmt, ap);
    if (evbuffer_add(buffer, out, (size_t)length) != 0) return -1;
    return length;
}

int evbuffer_add_printf(struct evbuffer *buffer, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int length = vmh_evbuffer_add_vformat(buffer, fmt, ap);
    va_end(ap);
    return length;
}

void *vmh_evbuffer_add_printf_definition(void) {
    return (void *)&evbuffer_add_printf;
}

int vmh_evhttp_reply_has_body(const struct evhttp_request *req, int status) {
    return req->type != EVHTTP_REQ_HEAD && status >= 200 && status != 204 && status != 304;
}

void vmh_evhttp_add_content_length(struct evhttp_request *req, size_t length) {
    if (req->major != 1 || req->minor < 1) return;
    char digits[VMH_DECIMAL_CAPACITY];
    vmh_format_decimal(digits, 0, length);
    evhttp_add_header(req->output_headers, "Content-Length", digits);
}
