#include "CLibeventShims.h"
#include "decimal.h"

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/http_struct.h>

int vmh_evhttp_request_is_chunked(const struct evhttp_request *req) {
    return req->chunked;
}

void vmh_evhttp_send_framed_chunk(
    struct evhttp_request *req, struct evbuffer *framed, void (*cb)(struct evhttp_connection *, void *), void *arg) {
    unsigned chunked = req->chunked;
    req->chunked = 0;
    evhttp_send_reply_chunk_with_cb(req, framed, cb, arg);
    req->chunked = chunked;
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
