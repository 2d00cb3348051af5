#include "CLibeventShims.h"
#include "decimal.h"

#include <event2/http.h>
#include <event2/http_struct.h>
#include <event2/keyvalq_struct.h>
#include <stdlib.h>
#include <string.h>

/// Whether `name` (`length` bytes) equals `other`, a lower-case name, with ASCII letters compared without
/// regard to case, as evhttp compares names.
static int vmh_names_equal(const char *name, size_t length, const char *other) {
    if (length != strlen(other)) return 0;
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c >= 'A' && c <= 'Z') c = (unsigned char)(c + ('a' - 'A'));
        if (c != (unsigned char)other[i]) return 0;
    }
    return 1;
}

/// Whether a header named `name` may be a line of the folded entry: evhttp never reads it. (The scan in
/// `vmh_header_lines_fold` refuses a name with a colon: the entry's name is taken up to the first one.)
static int vmh_may_fold(const char *name, size_t length) {
    switch (length) {
    case 0: return 0;
    case 4: return !vmh_names_equal(name, length, "date");
    case 10: return !vmh_names_equal(name, length, "connection");
    case 14: return !vmh_names_equal(name, length, "content-length");
    case 16: return !vmh_names_equal(name, length, "proxy-connection");
    case 17: return !vmh_names_equal(name, length, "transfer-encoding");
    default: return 1;
    }
}

/// Whether `bytes` hold CR or LF (`evhttp_add_header` refuses those), NUL (which ends the C string it would
/// have been given: the header as evhttp would keep it is not these bytes), or, with `colon_too`, a colon.
/// NB: one pass over bytes that are mostly short: cheaper than a `memchr` per byte sought (docs/performance.md,
/// "Receipts").
static int vmh_has_forbidden_byte(const char *bytes, size_t length, int colon_too) {
    for (size_t i = 0; i < length; i++) {
        unsigned char c = (unsigned char)bytes[i];
        if (c > ':') continue;
        if (c == '\r' || c == '\n' || c == '\0' || (colon_too && c == ':')) return 1;
    }
    return 0;
}

/// Makes room for `length` more bytes.
static int vmh_header_lines_reserve(struct vmh_header_lines *lines, size_t length) {
    if (length <= lines->capacity - lines->length) return 0;
    size_t capacity = lines->capacity < 256 ? 256 : lines->capacity;
    while (capacity - lines->length < length) capacity *= 2;
    char *grown = realloc(lines->bytes, capacity);
    if (grown == NULL) return -1;
    lines->bytes = grown;
    lines->capacity = capacity;
    return 0;
}

int vmh_header_lines_append(struct vmh_header_lines *lines, const char *bytes, size_t length) {
    if (length == 0) return 0;
    if (vmh_header_lines_reserve(lines, length) != 0) return -1;
    memcpy(lines->bytes + lines->length, bytes, length);
    lines->length += length;
    return 0;
}

int vmh_header_lines_fold(
    struct vmh_header_lines *lines, const char *name, size_t name_length, const char *value, size_t value_length) {
    if (!vmh_may_fold(name, name_length) || vmh_has_forbidden_byte(name, name_length, 1)
        || vmh_has_forbidden_byte(value, value_length, 0)) {
        return 0;
    }
    if (vmh_header_lines_reserve(lines, name_length + value_length + 4) != 0) return -1;
    char *line = lines->bytes + lines->length;
    memcpy(line, name, name_length);
    line += name_length;
    *line++ = ':';
    *line++ = ' ';
    if (value_length > 0) memcpy(line, value, value_length);
    line += value_length;
    *line++ = '\r';
    *line++ = '\n';
    lines->length += name_length + value_length + 4;
    if (name_length == 12 && vmh_names_equal(name, name_length, "content-type")) lines->has_content_type = 1;
    return 1;
}

/// `length` bytes as a C string, up to the first NUL among them, as a `String` given to a C parameter reads.
static char *vmh_c_string(const char *bytes, size_t length) {
    size_t count = length == 0 ? 0 : strnlen(bytes, length);
    char *copy = malloc(count + 1);
    if (copy == NULL) return NULL;
    if (count > 0) memcpy(copy, bytes, count);
    copy[count] = '\0';
    return copy;
}

int vmh_header_lines_add(
    struct vmh_header_lines *lines, struct evkeyvalq *headers, const char *name, size_t name_length,
    const char *value, size_t value_length) {
    int folded = vmh_header_lines_fold(lines, name, name_length, value, value_length);
    if (folded != 0) return folded == 1 ? 0 : -1;
    if (headers == NULL) return -1;
    char *key = vmh_c_string(name, name_length);
    char *copy = vmh_c_string(value, value_length);
    int added = key != NULL && copy != NULL && evhttp_add_header(headers, key, copy) == 0;
    // NB: a `Content-Type` that could not fold (a NUL in its value: an entry up to it) is still the reply's; one
    // that evhttp refuses (CR or LF) is not.
    if (added && vmh_names_equal(key, strlen(key), "content-type")) lines->has_content_type = 1;
    free(key);
    free(copy);
    return added ? 0 : -1;
}

int vmh_header_lines_content_length(
    struct vmh_header_lines *lines, const struct evhttp_request *req, size_t length) {
    if (lines->length != 0 || req->major != 1 || req->minor < 1) return 0;
    char line[16 + VMH_DECIMAL_CAPACITY + 2];
    memcpy(line, "Content-Length: ", 16);
    size_t count = 16 + vmh_format_decimal(line + 16, 0, length);
    line[count++] = '\r';
    line[count++] = '\n';
    return vmh_header_lines_append(lines, line, count) == 0 ? 1 : -1;
}

void vmh_header_lines_clear(struct vmh_header_lines *lines) {
    lines->length = 0;
    lines->has_content_type = 0;
}

int vmh_evhttp_add_header_lines(struct evkeyvalq *headers, struct vmh_header_lines *lines) {
    size_t length = lines->length;
    if (length == 0) return 0;
    vmh_header_lines_clear(lines);
    // The first line's name is the entry's key; its value runs from after ": " to before the last CRLF.
    const char *colon = memchr(lines->bytes, ':', length);
    if (colon == NULL) return -1;
    size_t key_length = (size_t)(colon - lines->bytes);
    if (length < key_length + 4) return -1;
    const char *value = colon + 2;
    size_t value_length = length - key_length - 4;

    // NB: what `evhttp_add_header` allocates for an entry, as libevent allocates it (`mm_malloc` is `malloc`
    // unless `event_set_mem_functions` was called, which vmhost never does): `evhttp_clear_headers` frees it.
    struct evkeyval *header = calloc(1, sizeof *header);
    char *key = malloc(key_length + 1);
    char *copy = malloc(value_length + 1);
    if (header == NULL || key == NULL || copy == NULL) {
        free(header);
        free(key);
        free(copy);
        return -1;
    }
    memcpy(key, lines->bytes, key_length);
    key[key_length] = '\0';
    memcpy(copy, value, value_length);
    copy[value_length] = '\0';
    header->key = key;
    header->value = copy;
    // TAILQ_INSERT_TAIL
    header->next.tqe_next = NULL;
    header->next.tqe_prev = headers->tqh_last;
    *headers->tqh_last = header;
    headers->tqh_last = &header->next.tqe_next;
    return 0;
}

void vmh_header_lines_free(struct vmh_header_lines *lines) {
    free(lines->bytes);
    lines->bytes = NULL;
    lines->capacity = 0;
    vmh_header_lines_clear(lines);
}
