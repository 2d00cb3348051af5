#ifndef VMHOST_CHIREDISSHIMS_H
#define VMHOST_CHIREDISSHIMS_H

#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>

#include <stddef.h>
#include <hiredis/hiredis.h>
#include <hiredis/async.h>

struct event_base;

/// Typed, non-variadic wrappers for hiredis' async API on libevent (the adapter is a header of static
/// functions, which Swift cannot call). Every symbol is prefixed `vmh_redis_`.

/// Starts a non-blocking connect to `ip:port`. NULL only when out of memory; otherwise check
/// `vmh_redis_error` at once (a refused connection may already show there) and free the context on error.
redisAsyncContext *vmh_redis_connect(const char *ip, int port);

/// Attaches the context to a libevent base (`redisLibeventAttach`). Returns REDIS_OK or REDIS_ERR.
int vmh_redis_attach(redisAsyncContext *context, struct event_base *base);

/// The context's error code (0 when none) and message (never NULL).
int vmh_redis_error(const redisAsyncContext *context);
const char *vmh_redis_error_message(const redisAsyncContext *context);

/// The opaque pointer hiredis keeps for the caller (`ac->data`).
void vmh_redis_set_data(redisAsyncContext *context, void *data);
void *vmh_redis_data(const redisAsyncContext *context);

/// Connect callback: status REDIS_OK when connected, REDIS_ERR when the connect failed (hiredis then frees
/// the context right after the callback, failing pending commands first; no disconnect callback follows).
int vmh_redis_set_connect_callback(redisAsyncContext *context, void (*callback)(const redisAsyncContext *, int));

/// Disconnect callback: called once, last, for a context that had connected; the context is freed after it.
int vmh_redis_set_disconnect_callback(redisAsyncContext *context,
                                      void (*callback)(const redisAsyncContext *, int));

/// Queues one command already encoded in the Redis protocol, `length` bytes at `command` (what
/// `redisAsyncFormattedCommand` does; hiredis copies them before returning), without asking for the write event:
/// call `vmh_redis_schedule_write` (or `vmh_redis_write_now`) once after the last command of a batch. On REDIS_OK
/// `callback` is called exactly once with `privdata`: with the reply, or with NULL when the context goes away
/// first. On REDIS_ERR it is never called. Subscribe and monitor commands call back more than once: never send
/// them.
int vmh_redis_append_command(redisAsyncContext *context, void (*callback)(redisAsyncContext *, void *, void *),
                             void *privdata, const char *command, size_t length);

/// Asks the loop for the write event, so that what `vmh_redis_append_command` queued goes out.
void vmh_redis_schedule_write(redisAsyncContext *context);

/// Makes room for `bytes` more in the context's output buffer at once, so that the commands queued next are
/// copied in without the buffer growing on the way (hiredis empties it after each complete write and grows it
/// again, a `realloc` at each doubling). Nothing happens when there is room, or when memory is short (the
/// commands then grow it as usual).
void vmh_redis_reserve(redisAsyncContext *context, size_t bytes);

/// Writes the commands queued so far to the socket now (`redisAsyncHandleWrite`, what the write event would do
/// on the loop's next turn); what the socket does not take waits for the write event as before. On a write
/// error hiredis disconnects: the disconnect callback runs before this returns.
void vmh_redis_write_now(redisAsyncContext *context);

/// Frees the context at once (`redisAsyncFree`): pending callbacks get NULL replies, then the disconnect
/// callback runs (if it had connected). Never call it from inside a hiredis callback: 0.14 frees a
/// connecting context at once even there, under the caller's feet.
void vmh_redis_free(redisAsyncContext *context);

/// Reply accessors. `reply` is only valid inside the command callback.
int vmh_redis_reply_type(const redisReply *reply);
long long vmh_redis_reply_integer(const redisReply *reply);
const char *vmh_redis_reply_string(const redisReply *reply);
size_t vmh_redis_reply_length(const redisReply *reply);
size_t vmh_redis_reply_element_count(const redisReply *reply);
/// Element `index` of an array reply (NULL when out of range).
const redisReply *vmh_redis_reply_element(const redisReply *reply, size_t index);

/// Constants that are macros in hiredis' headers.
extern const int vmh_redis_ok;
extern const int vmh_redis_reply_type_string;
extern const int vmh_redis_reply_type_array;
extern const int vmh_redis_reply_type_integer;
extern const int vmh_redis_reply_type_nil;
extern const int vmh_redis_reply_type_status;
extern const int vmh_redis_reply_type_error;

#endif
