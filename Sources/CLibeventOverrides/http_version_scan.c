#include "overrides_internal.h"

#include "CLibeventOverrides.h"

#include <stdarg.h>
#include <string.h>

/// glibc's `sscanf` (C99 semantics), which this file's definition passes every other format to.
extern int __isoc99_vsscanf(const char *s, const char *format, va_list ap);

/// The format evhttp reads every request's version with (`evhttp_parse_http_version`).
static const char vmh_version_format[] = "HTTP/%d.%d%c";

int __isoc99_sscanf(const char *s, const char *format, ...) {
    va_list ap;
    va_start(ap, format);
    int assigned;
    // NB: only the two versions every client sends; anything else (more digits, signs, spaces, trailing bytes)
    // goes to glibc, whatever it would make of it.
    if (vmh_overrides_on && strcmp(format, vmh_version_format) == 0 && s[0] == 'H' && s[1] == 'T' && s[2] == 'T' && s[3] == 'P'
        && s[4] == '/' && s[5] == '1' && s[6] == '.' && (s[7] == '0' || s[7] == '1') && s[8] == '\0') {
        int *major = va_arg(ap, int *);
        int *minor = va_arg(ap, int *);
        *major = 1;
        *minor = s[7] - '0';
        assigned = 2;  // `%c` finds the end of the input: the conversions before it count
    } else {
        assigned = __isoc99_vsscanf(s, format, ap);
    }
    va_end(ap);
    return assigned;
}

void *vmh_sscanf_definition(void) {
    return (void *)&__isoc99_sscanf;
}

int vmh_scan_three(void *scan, const char *s, const char *format, int *first, int *second, char *third) {
    int (*function)(const char *, const char *, ...) = (int (*)(const char *, const char *, ...))scan;
    return function(s, format, first, second, third);
}
