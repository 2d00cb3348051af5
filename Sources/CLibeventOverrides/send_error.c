#include "overrides_internal.h"

#include "CLibeventOverrides.h"

#include <event2/http.h>
#include <event2/http_struct.h>

static vmh_send_error_hook vmh_error_hook = NULL;

void vmh_set_send_error_hook(vmh_send_error_hook hook) {
    vmh_error_hook = hook;
}

void evhttp_send_error(struct evhttp_request *req, int error, const char *reason) {
    if (vmh_overrides_on && vmh_error_hook != NULL && vmh_error_hook(req, error) != 0) return;
    typedef void (*send_error_function)(struct evhttp_request *, int, const char *);
    send_error_function libevent_send_error = VMH_NEXT(send_error_function, "evhttp_send_error");
    if (libevent_send_error != NULL) {
        libevent_send_error(req, error, reason);
    } else if (req->evcon != NULL) {
        evhttp_connection_free(req->evcon);
    }
}

void *vmh_evhttp_send_error_definition(void) {
    return (void *)&evhttp_send_error;
}
