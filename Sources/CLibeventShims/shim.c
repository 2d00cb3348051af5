#include "CLibeventShims.h"

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/http_struct.h>

#include <stdlib.h>

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

int vmh_bufferevent_write_now(struct bufferevent *bev) {
    struct evbuffer *output = bufferevent_get_output(bev);
    evutil_socket_t fd = bufferevent_getfd(bev);
    if (fd < 0 || evbuffer_get_length(output) == 0) return 0;
    // NB: a socket bufferevent keeps the front of its output frozen: only its own write callback drains it.
    evbuffer_unfreeze(output, 1);
    evbuffer_write(output, fd);
    evbuffer_freeze(output, 1);
    // NB: what is left (or all of it, on an error such as the client gone) goes with the bufferevent's own write
    // (which reports the error): bytes added to the output straight (not through evhttp) may not have enabled it.
    if (evbuffer_get_length(output) != 0) {
        bufferevent_enable(bev, EV_WRITE);
        return 0;
    }
    bufferevent_disable(bev, EV_WRITE);
    bufferevent_trigger(bev, EV_WRITE, 0);
    return 1;
}

static void vmh_read_hold_fired(evutil_socket_t fd, short what, void *arg) {
    (void)fd;
    (void)what;
    (void)arg;
}

struct event *vmh_read_hold_new(struct bufferevent *bev) {
    evutil_socket_t fd = bufferevent_getfd(bev);
    struct event_base *base = bufferevent_get_base(bev);
    if (fd < 0 || base == NULL) return NULL;
    return event_new(base, fd, EV_READ, vmh_read_hold_fired, NULL);
}

int vmh_read_hold_add(struct event *hold) {
    return event_add(hold, NULL);
}

void vmh_read_hold_remove(struct event *hold) {
    event_del(hold);
}

void vmh_read_hold_free(struct event *hold) {
    event_free(hold);
}

int vmh_evhttp_reply_has_body(const struct evhttp_request *req, int status) {
    return req->type != EVHTTP_REQ_HEAD && status >= 200 && status != 204 && status != 304;
}

void vmh_evhttp_request_drop_unread(struct evhttp_request *req) {
    // NB: libevent allocates these with `mm_malloc`, which is `malloc` unless `event_set_mem_functions` was called
    // (vmhost never calls it), and `evhttp_request_free` skips the NULL ones.
    free(req->uri);
    req->uri = NULL;
    if (req->uri_elems != NULL) evhttp_uri_free(req->uri_elems);
    req->uri_elems = NULL;
    free(req->remote_host);
    req->remote_host = NULL;
    free(req->host_cache);
    req->host_cache = NULL;
    free(req->response_code_line);
    req->response_code_line = NULL;
    if (req->input_buffer != NULL) evbuffer_free(req->input_buffer);
    req->input_buffer = NULL;
    if (req->output_buffer != NULL) evbuffer_free(req->output_buffer);
    req->output_buffer = NULL;
}

void vmh_evhttp_request_set_version(struct evhttp_request *req, int major, int minor) {
    req->major = (char)major;
    req->minor = (char)minor;
}
