#ifndef VMHOST_CLIBEVENTOVERRIDES_H
#define VMHOST_CLIBEVENTOVERRIDES_H

#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdarg.h>

/// Functions that libevent (and glibc, for libevent) call, which the executable defines again: libevent calls
/// them through the PLT, so the dynamic linker binds those calls to vmhost's definitions. All of them are here
/// and nowhere else. Four are speed tricks, measured in docs/performance.md ("Where the time goes"):
/// `evbuffer_add_printf`, `evhttp_find_header`, `evutil_ascii_strcasecmp` and glibc's `__isoc99_sscanf`; one
/// is behaviour: `evhttp_send_error`, so that evhttp's own refusals are the API's JSON errors.
///
/// They were written against libevent 2.1.12 (`VMH_OVERRIDES_LIBEVENT_VERSION`). At load, a constructor
/// compares `event_get_version_number()` with it; on any other libevent every override hands its call to
/// libevent's (or glibc's) own function (found with `dlsym(RTLD_NEXT, ...)`), and `vmh_overrides_active()`
/// says so, for the start-up log line. Each override's results are libevent's, checked by the tests.

struct evbuffer;
struct evhttp_request;

/// The libevent release the overrides were written for: 2.1.12-stable.
#define VMH_OVERRIDES_LIBEVENT_VERSION 0x02010c00

/// 1 when the overrides run (this process's libevent is the one they were written for), 0 when every call goes
/// to libevent's own functions.
int vmh_overrides_active(void);

/// Turns the overrides on (1, only if libevent is the version they were written for) or off (0); returns whether
/// they are on. For the tests of the fallback; the constructor decides at load otherwise.
int vmh_overrides_set_active(int active);

/// `event_get_version_number()` of this process's libevent.
unsigned int vmh_libevent_version_number(void);

/// evhttp reads every request's version with `sscanf(version, "HTTP/%d.%d%c", ...)` (glibc's scanner, per
/// request). vmhost defines the function those calls bind to (`__isoc99_sscanf`, for every caller in the
/// process): that format applied to `HTTP/1.1` or `HTTP/1.0` is answered directly (2 conversions, as glibc's),
/// and every other call goes to glibc's `__isoc99_vsscanf` unchanged (`http_version_scan.c`).
///
/// This process's own `__isoc99_sscanf` (to check that the dynamic linker chose it).
void *vmh_sscanf_definition(void);

/// Calls `scan(s, format, first, second, third)`, `scan` being an `sscanf` (Swift cannot call a variadic
/// function; for tests comparing this process's `sscanf` with glibc's).
int vmh_scan_three(void *scan, const char *s, const char *format, int *first, int *second, char *third);

/// evhttp writes the status line and every header line of a response with `evbuffer_add_printf` (glibc's
/// `vsnprintf` underneath). vmhost's definition (`evbuffer_printf.c`) formats `%s`, `%d` and `%%` directly and
/// hands every other format to libevent's `evbuffer_add_vprintf`, so the bytes are printf's either way.
///
/// What vmhost's `evbuffer_add_printf` runs: appends `fmt` formatted with `ap` to `buffer`, like
/// `evbuffer_add_vprintf`; returns the bytes added or -1.
int vmh_evbuffer_add_vformat(struct evbuffer *buffer, const char *fmt, va_list ap);

/// This process's own `evbuffer_add_printf` (to check that the dynamic linker chose it).
void *vmh_evbuffer_add_printf_definition(void);

/// evhttp looks headers up by name (`evhttp_find_header`, ~20 lookups per command), comparing the name with
/// each header's in turn with `evutil_ascii_strcasecmp`, which lowers every byte of both with a call. vmhost
/// defines both (`header_lookup.c`) with the same results: the lowering inline, and a lookup that compares whole
/// names only where the first letters agree.
///
/// This process's own `evutil_ascii_strcasecmp` (to check that the dynamic linker chose it).
void *vmh_evutil_ascii_strcasecmp_definition(void);

/// This process's own `evhttp_find_header`.
void *vmh_evhttp_find_header_definition(void);

/// What answers the errors evhttp would answer itself with an HTML page (`evhttp_send_error`: a head it cannot
/// parse, a body over its limit, an `Expect` it does not know): returns 1 when it answered `req` with `error`
/// (the status), 0 to let evhttp's own page go.
typedef int (*vmh_send_error_hook)(struct evhttp_request *req, int error);

/// vmhost defines `evhttp_send_error` too (`send_error.c`): the hook set here answers first, and libevent's own
/// answers when there is none, it declines, or the overrides are off. Set once, on the loop thread.
void vmh_set_send_error_hook(vmh_send_error_hook hook);

/// This process's own `evhttp_send_error` (to check that the dynamic linker chose it).
void *vmh_evhttp_send_error_definition(void);

#endif
