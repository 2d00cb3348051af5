#ifndef VMHOST_CLIBEVENT_SHIM_H
#define VMHOST_CLIBEVENT_SHIM_H

// NB: libevent's event-config.h defines _GNU_SOURCE; pulling these system headers in first keeps the
// module's view of fd_set and friends identical to Glibc's, so it composes with Foundation.
#include <sys/types.h>
#include <sys/time.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/eventfd.h>

#include <event2/event.h>
#include <event2/thread.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <event2/util.h>
#endif
