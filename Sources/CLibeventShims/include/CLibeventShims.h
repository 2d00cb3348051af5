#ifndef VMHOST_CLIBEVENTSHIMS_H
#define VMHOST_CLIBEVENTSHIMS_H

#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <stdarg.h>

#include "decimal.h"

struct evhttp_request;
struct evhttp_connection;
struct evbuffer;

/// What evhttp keeps inside its request struct (`event2/http_struct.h`, which would make every request pointer
/// a typed one in Swift): kept to this file. Every symbol is prefixed `vmh_evhttp_`.

/// Whether evhttp frames `req`'s reply in chunks (HTTP/1.1 without a Content-Length).
int vmh_evhttp_request_is_chunked(const struct evhttp_request *req);

/// Sends `framed`, bytes already framed as whole HTTP/1.1 chunks (size line, data, CRLF), as the next part of
/// `req`'s chunked reply, with `cb` called once written (NULL: none). evhttp's own framing formats each size
/// line with printf, the largest single cost of an event delivery; the chunked flag is cleared for
/// this call only, so evhttp still writes the last chunk when the reply ends.
void vmh_evhttp_send_framed_chunk(
    struct evhttp_request *req, struct evbuffer *framed, void (*cb)(struct evhttp_connection *, void *), void *arg);

struct bufferevent;

/// Writes what waits in the output buffer of `bev` (a socket bufferevent) to its socket, as far as the socket takes
/// it, instead of when the loop next finds the socket writable. When all of it went, does what the bufferevent
/// does then: disables its write event (enabled by the write that queued the bytes: within one loop turn, the
/// epoll changelist then makes no system call for either) and runs its write callback, evhttp's (a reply
/// written whole is finished: evhttp frees the request and the connection reads its next one or closes, freeing
/// the bufferevent once this returns). What is left waits for the bufferevent's own write (its write event is
/// enabled). Returns 1 when the output was written whole, else 0 (nothing to write, or some left).
int vmh_bufferevent_write_now(struct bufferevent *bev);

struct event;

/// A read hold for the socket of `bev` (a server connection's), not yet added: it keeps the socket registered
/// for reading while a request waits for an answer given in a later turn of the loop (a command waiting for the
/// journal). A one-shot read event of its own, which does nothing when it fires. evhttp stops reading when it
/// hands a request over and starts again once the answer is written; without a hold each of those is an
/// `epoll_ctl` (a delete, then an add, in two turns), with one the socket stays registered (one `epoll_ctl`
/// modify in the first turn, none in the second), as when the answer goes in the turn of the request. Data or a
/// close arriving meanwhile fires the hold once (it is then no longer pending, and the bytes stay in the socket
/// for evhttp). Returns NULL when the bufferevent has no socket or no event could be made.
/// NB: made once per connection and added (``vmh_read_hold_add``) and removed (``vmh_read_hold_remove``) per
/// request: an event made and freed per request cost ~750 instructions. Free it (``vmh_read_hold_free``) before
/// the socket can close: in the connection's close callback (evhttp calls it before closing), and before the
/// `evhttp` is freed. A hold left on a closed descriptor would keep libevent's count of readers of a later socket
/// with the same number wrong.
struct event *vmh_read_hold_new(struct bufferevent *bev);

/// Adds the hold (0 on success).
int vmh_read_hold_add(struct event *hold);

/// Removes the hold (fired or not).
void vmh_read_hold_remove(struct event *hold);

/// Removes and frees the hold.
void vmh_read_hold_free(struct event *hold);

struct evkeyvalq;

/// A reply's header lines that evhttp never reads, collected to go into its header list as one entry.
///
/// evhttp keeps a reply's headers as a list of entries: an allocation each for the entry, its name and its
/// value, each checked when added, written with `evbuffer_add_printf` and freed (docs/performance.md,
/// "Receipts"). It reads only a few itself: `Content-Length`, `Transfer-Encoding`, `Connection`, `Date`,
/// and whether there is a `Content-Type` when it has a default to add (vmhost's server sets none and adds its
/// own). The others fold into one entry named after the first line, whose value holds the rest of the lines:
/// evhttp writes an entry as `key: value` CRLF, so the lines reach the wire byte for byte as separate headers
/// would. A reply's `Content-Length` can be that first line (`vmh_header_lines_content_length`), where evhttp
/// finds it. Zero-initialised; `vmh_header_lines_free` frees its bytes.
struct vmh_header_lines {
    char *bytes;
    size_t length;
    size_t capacity;
    /// Whether a `Content-Type` line was folded since the lines were last emptied.
    int has_content_type;
};

/// Appends `name: value` CRLF to `lines` and returns 1, unless the header must be an entry of its own (0): a
/// name evhttp reads (`Content-Length`, `Transfer-Encoding`, `Connection`, `Proxy-Connection`, `Date`, in any
/// case), an empty name or one with a colon, and a name or value holding CR or LF (`evhttp_add_header` then
/// refuses it, as it always did) or NUL (as a C string it ends there, as it always did). -1: allocating
/// failed (nothing appended).
int vmh_header_lines_fold(
    struct vmh_header_lines *lines, const char *name, size_t name_length, const char *value, size_t value_length);

/// Adds `name: value` to a reply: folded into `lines` (`vmh_header_lines_fold`), or else as an entry of its own
/// of `headers` at once, with `evhttp_add_header` (which refuses CR and LF) and each side read as a C string
/// (up to a NUL). Returns 0, or -1 when the header was refused or allocating failed.
int vmh_header_lines_add(
    struct vmh_header_lines *lines, struct evkeyvalq *headers, const char *name, size_t name_length,
    const char *value, size_t value_length);

/// Makes `Content-Length: length` the first line of the empty `lines` when `req` is HTTP/1.1 (evhttp then
/// finds it as the entry's name, where it would have added one itself: a reply with a body); returns 1. 0:
/// not added (lines not empty, or HTTP/1.0, whose length evhttp decides by keep-alive); -1: allocating failed.
int vmh_header_lines_content_length(
    struct vmh_header_lines *lines, const struct evhttp_request *req, size_t length);

/// Sets the HTTP version of `req` (for tests of replies to a request evhttp did not parse).
void vmh_evhttp_request_set_version(struct evhttp_request *req, int major, int minor);

/// Empties `lines` (its capacity stays).
void vmh_header_lines_clear(struct vmh_header_lines *lines);

/// Appends `length` bytes of lines `vmh_header_lines_fold` made before (lines that fold wherever they go).
/// Returns 0, or -1 when allocating fails.
int vmh_header_lines_append(struct vmh_header_lines *lines, const char *bytes, size_t length);

/// Adds the lines collected to `headers` as one entry and empties `lines` (its capacity stays). Returns 0, or
/// -1 when allocating fails (the lines are dropped).
int vmh_evhttp_add_header_lines(struct evkeyvalq *headers, struct vmh_header_lines *lines);

/// Frees the bytes of `lines`.
void vmh_header_lines_free(struct vmh_header_lines *lines);

/// Frees what `req` keeps that evhttp no longer reads once its reply has started as a stream: the target and its
/// parsed parts, the peer's address and the reason phrase (~200 bytes), and the request's body and reply buffers
/// (two empty `evbuffer`s, 320 bytes with the allocator's rounding). evhttp reads the target to dispatch the
/// request, the reason phrase to write the reply's head, the body buffer while it reads a body and the reply
/// buffer when it writes a whole reply; a stream's chunks go from the caller's buffer to the connection's, and
/// `evhttp_request_free` skips what is NULL here. For streams, which hold their request for as long as they are
/// open; `evhttp_request_get_uri`, `evhttp_request_get_input_buffer` and `evhttp_request_get_output_buffer`
/// return NULL afterwards.
void vmh_evhttp_request_drop_unread(struct evhttp_request *req);

/// Whether the reply to `req` with `status` has a body on the wire: not one to `HEAD`, a 1xx, 204 or 304.
/// evhttp sends any body it is given, where a client reads it as the start of the next response.
int vmh_evhttp_reply_has_body(const struct evhttp_request *req, int status);

/// What is wrong with the framing of `req`'s head, in the words of a `400` message, or NULL when nothing is.
/// Refused as HAProxy refuses them (request smuggling: evhttp accepts them, a proxy in front may read them
/// otherwise): a header name that is not an RFC 9110 token (`Content-Length : 15`), a `Content-Length` that is
/// not only digits (`+15`) or several that differ, a `Transfer-Encoding` other than one `chunked`, and a
/// `Transfer-Encoding` in HTTP/1.0. One pass over the header list, comparing whole names only for the two
/// that frame a body.
const char *vmh_evhttp_request_framing_error(const struct evhttp_request *req);

/// Whether evhttp reads `req`'s body in chunks.
int vmh_evhttp_request_body_is_chunked(const struct evhttp_request *req);

/// Makes `req` an HTTP/1.1 request when its version was never parsed (a request line evhttp refused), as
/// evhttp's own error page does.
void vmh_evhttp_request_default_version(struct evhttp_request *req);

#endif
