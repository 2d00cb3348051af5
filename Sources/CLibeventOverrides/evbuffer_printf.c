#include "overrides_internal.h"

#include "CLibeventOverrides.h"
#include "decimal.h"

#include <event2/buffer.h>
#include <string.h>

/// The most bytes one call formats on the stack; longer results go to libevent's own `vprintf` path.
enum { VMH_FORMAT_CAPACITY = 512 };

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
    int length = vmh_overrides_on ? vmh_evbuffer_add_vformat(buffer, fmt, ap) : evbuffer_add_vprintf(buffer, fmt, ap);
    va_end(ap);
    return length;
}

void *vmh_evbuffer_add_printf_definition(void) {
    return (void *)&evbuffer_add_printf;
}
