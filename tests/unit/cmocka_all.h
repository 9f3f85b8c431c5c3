// The includes cmocka needs before its own header, in the order it needs them.
#ifndef CMOCKA_ALL_H
#define CMOCKA_ALL_H
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#endif
