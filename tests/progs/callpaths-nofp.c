// build: -fomit-frame-pointer -fasynchronous-unwind-tables
/*
 * callpaths built without frame pointers (and optimised, -O1): the frame-pointer walk cannot
 * follow it; --call-graph dwarf, unwinding with the call frame information, can.
 */
#include "callpaths.c"
