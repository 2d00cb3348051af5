#ifndef VMH_DECIMAL_H
#define VMH_DECIMAL_H

#include <stddef.h>

/// The most bytes `vmh_format_decimal` writes: a sign, 20 digits and the terminating NUL.
enum { VMH_DECIMAL_CAPACITY = 22 };

/// Writes `magnitude` in decimal, after a `-` when `negative`, and a NUL to `out`; returns the length without
/// the NUL.
static inline size_t vmh_format_decimal(char out[VMH_DECIMAL_CAPACITY], int negative, unsigned long magnitude) {
    char reversed[20];
    size_t count = 0;
    do {
        reversed[count++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    size_t length = 0;
    if (negative) out[length++] = '-';
    while (count > 0) out[length++] = reversed[--count];
    out[length] = '\0';
    return length;
}

#endif
