#include "CLibeventShims.h"

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
