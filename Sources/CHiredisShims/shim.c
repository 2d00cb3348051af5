#include "CHiredisShims.h"

#include <hiredis/adapters/libevent.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(long long) == 8, "vmhost assumes a 64-bit long long: Swift Int64");

// The `+QUEUED` that Redis answers to each command queued in a transaction, as one object that is never
// allocated nor freed: vmhost queues its commands without a callback, so hiredis only parses the reply and
// frees it again (a reply object and its string, ~300 instructions a command of a transaction, on every
// command of the journal's fast path). Every other reply is built and freed by hiredis' own functions.
static char vmh_queued_text[] = "QUEUED";
static redisReply vmh_queued = {.type = REDIS_REPLY_STATUS, .str = vmh_queued_text, .len = 6};
static redisReplyObjectFunctions *vmh_default_functions;
static redisReplyObjectFunctions vmh_functions;
static pthread_once_t vmh_functions_once = PTHREAD_ONCE_INIT;

static void *vmh_create_string(const redisReadTask *task, char *text, size_t length) {
    if (task->parent == NULL && task->type == REDIS_REPLY_STATUS && length == 6 && memcmp(text, "QUEUED", 6) == 0) {
        return &vmh_queued;
    }
    return vmh_default_functions->createString(task, text, length);
}

// An integer reply on its own (not an element of an array) in one object per thread, neither allocated nor freed
// while it is free: the journal's fast path gets one such reply per command (`RPUSHX`'s length), which hiredis
// builds, hands to the callback and frees again at once (~150 instructions a command in `calloc` and `free`). A
// second one while the first is still held (never, as hiredis gives one reply at a time) is hiredis' own.
static __thread redisReply vmh_integer;
static __thread int vmh_integer_held;

static void *vmh_create_integer(const redisReadTask *task, long long value) {
    if (task->parent != NULL || vmh_integer_held) return vmh_default_functions->createInteger(task, value);
    vmh_integer_held = 1;
    vmh_integer = (redisReply){.type = REDIS_REPLY_INTEGER, .integer = value};
    return &vmh_integer;
}

static void vmh_free_object(void *reply) {
    if (reply == &vmh_integer) {
        vmh_integer_held = 0;
    } else if (reply != &vmh_queued) {
        vmh_default_functions->freeObject(reply);
    }
}

// hiredis' own functions table (a reader's default), copied once with two of its functions wrapped. NB: once
// for the process, whichever loop connects first (tests run several servers, each on its own thread).
static void vmh_make_functions(void) {
    redisReader *reader = redisReaderCreate();
    if (reader == NULL) return;
    vmh_default_functions = reader->fn;
    redisReaderFree(reader);
    if (vmh_default_functions == NULL) return;
    vmh_functions = *vmh_default_functions;
    vmh_functions.createString = vmh_create_string;
    vmh_functions.createInteger = vmh_create_integer;
    vmh_functions.freeObject = vmh_free_object;
}

redisAsyncContext *vmh_redis_connect(const char *ip, int port) {
    redisAsyncContext *context = redisAsyncConnect(ip, port);
    if (context == NULL || context->err || context->c.reader == NULL) return context;
    pthread_once(&vmh_functions_once, vmh_make_functions);
    // NB: only when the reader uses hiredis' own table (the one wrapped), and the table was made.
    if (vmh_default_functions != NULL && context->c.reader->fn == vmh_default_functions) {
        context->c.reader->fn = &vmh_functions;
    }
    return context;
}

int vmh_redis_attach(redisAsyncContext *context, struct event_base *base) {
    return redisLibeventAttach(context, base);
}

int vmh_redis_error(const redisAsyncContext *context) {
    return context->err;
}

const char *vmh_redis_error_message(const redisAsyncContext *context) {
    return context->errstr != NULL ? context->errstr : "";
}

void vmh_redis_set_data(redisAsyncContext *context, void *data) {
    context->data = data;
}

void *vmh_redis_data(const redisAsyncContext *context) {
    return context->data;
}

int vmh_redis_set_connect_callback(redisAsyncContext *context, void (*callback)(const redisAsyncContext *, int)) {
    return redisAsyncSetConnectCallback(context, callback);
}

int vmh_redis_set_disconnect_callback(redisAsyncContext *context,
                                      void (*callback)(const redisAsyncContext *, int)) {
    return redisAsyncSetDisconnectCallback(context, callback);
}

#if HIREDIS_MAJOR == 0 && HIREDIS_MINOR == 14
// What `redisAsyncFormattedCommand` does for a command that is neither (P)SUBSCRIBE, (P)UNSUBSCRIBE nor MONITOR on
// a context that is neither subscribed nor monitoring (vmhost sends no other), written against hiredis 0.14's
// public structures: its callback queued on `replies` (a node from `malloc`, which hiredis gives back with `free`
// once the reply came), the command appended to the output buffer. What it leaves out: finding the command's
// name and comparing it with those three (~200 instructions), and asking the adapter for the write event at every
// command (`vmh_redis_schedule_write`, once per batch). Unlike 0.14's own, it fails without queuing anything when
// memory is short, instead of queuing a callback whose command it did not append (or the reverse).
int vmh_redis_append_command(redisAsyncContext *context, void (*callback)(redisAsyncContext *, void *, void *),
                             void *privdata, const char *command, size_t length) {
    redisContext *c = &context->c;
    if (c->flags & (REDIS_DISCONNECTING | REDIS_FREEING | REDIS_SUBSCRIBED | REDIS_MONITORING)) {
        // NB: the last two never happen here; hiredis' own function knows what to do with them.
        if (c->flags & (REDIS_DISCONNECTING | REDIS_FREEING)) return REDIS_ERR;
        return redisAsyncFormattedCommand(context, callback, privdata, command, length);
    }
    redisCallback *node = malloc(sizeof(*node));
    if (node == NULL) return REDIS_ERR;
    sds grown = sdscatlen(c->obuf, command, length);
    if (grown == NULL) {
        free(node);
        return REDIS_ERR;
    }
    c->obuf = grown;
    *node = (redisCallback){.next = NULL, .fn = callback, .pending_subs = 1, .privdata = privdata};
    redisCallbackList *replies = &context->replies;
    if (replies->head == NULL) replies->head = node;
    if (replies->tail != NULL) replies->tail->next = node;
    replies->tail = node;
    return REDIS_OK;
}

void vmh_redis_schedule_write(redisAsyncContext *context) {
    if (context->ev.addWrite != NULL) context->ev.addWrite(context->ev.data);
}
#else
// Any other hiredis: its own function, and the write event it asks for itself.
int vmh_redis_append_command(redisAsyncContext *context, void (*callback)(redisAsyncContext *, void *, void *),
                             void *privdata, const char *command, size_t length) {
    return redisAsyncFormattedCommand(context, callback, privdata, command, length);
}

void vmh_redis_schedule_write(redisAsyncContext *context) {
    (void)context;
}
#endif

void vmh_redis_reserve(redisAsyncContext *context, size_t bytes) {
    redisContext *c = &context->c;
    if (c->obuf == NULL || sdsavail(c->obuf) >= bytes) return;
    sds grown = sdsMakeRoomFor(c->obuf, bytes);
    if (grown != NULL) c->obuf = grown;
}

void vmh_redis_write_now(redisAsyncContext *context) {
    redisAsyncHandleWrite(context);
}

void vmh_redis_free(redisAsyncContext *context) {
    redisAsyncFree(context);
}

int vmh_redis_reply_type(const redisReply *reply) {
    return reply->type;
}

long long vmh_redis_reply_integer(const redisReply *reply) {
    return reply->integer;
}

const char *vmh_redis_reply_string(const redisReply *reply) {
    return reply->str;
}

size_t vmh_redis_reply_length(const redisReply *reply) {
    return reply->len;
}

size_t vmh_redis_reply_element_count(const redisReply *reply) {
    return reply->type == REDIS_REPLY_ARRAY ? reply->elements : 0;
}

const redisReply *vmh_redis_reply_element(const redisReply *reply, size_t index) {
    if (reply->type != REDIS_REPLY_ARRAY || index >= reply->elements) return NULL;
    return reply->element[index];
}

const int vmh_redis_ok = REDIS_OK;
const int vmh_redis_reply_type_string = REDIS_REPLY_STRING;
const int vmh_redis_reply_type_array = REDIS_REPLY_ARRAY;
const int vmh_redis_reply_type_integer = REDIS_REPLY_INTEGER;
const int vmh_redis_reply_type_nil = REDIS_REPLY_NIL;
const int vmh_redis_reply_type_status = REDIS_REPLY_STATUS;
const int vmh_redis_reply_type_error = REDIS_REPLY_ERROR;
