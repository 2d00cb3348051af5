// Declarations only (include/CFuzzerDriver.h): libFuzzer itself provides the function when linked in.
#include "CFuzzerDriver.h"
