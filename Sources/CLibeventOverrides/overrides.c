#include "overrides_internal.h"

#include "CLibeventOverrides.h"

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

int vmh_overrides_on = 0;

/// Decides, before `main`, whether the overrides run: only on the libevent they were written for, and not when
/// the environment says `VMHOST_LIBEVENT_OVERRIDES=off` (for an operator who suspects them, and for the test of
/// the fallback).
__attribute__((constructor)) static void vmh_overrides_decide(void) {
    const char *setting = getenv("VMHOST_LIBEVENT_OVERRIDES");
    int refused = setting != NULL && strcmp(setting, "off") == 0;
    vmh_overrides_on = !refused && event_get_version_number() == VMH_OVERRIDES_LIBEVENT_VERSION;
}

int vmh_overrides_active(void) {
    return vmh_overrides_on;
}

int vmh_overrides_set_active(int active) {
    vmh_overrides_on = active && event_get_version_number() == VMH_OVERRIDES_LIBEVENT_VERSION;
    return vmh_overrides_on;
}

unsigned int vmh_libevent_version_number(void) {
    return (unsigned int)event_get_version_number();
}

void *vmh_next_definition(const char *name) {
    return dlsym(RTLD_NEXT, name);
}
