/* util/error: one error record that travels up the call chain.
 * Library code fills it and returns a non-zero code; only the CLI prints it. */
#ifndef LS_UTIL_ERROR_H
#define LS_UTIL_ERROR_H

#include <stddef.h>

/* Return codes. 0 is success everywhere. */
enum ls_status {
    LS_OK = 0,
    LS_ERR_INPUT = 1,    /* malformed, missing or unreadable input, bad option,
                            impossible shape: exit 2 */
    LS_ERR_IO = 2,       /* cannot write an output, or an I/O error mid-read: exit 1 */
    LS_ERR_NOMEM = 3,    /* allocation failed: exit 1 */
    LS_ERR_LIMIT = 4,    /* time or memory budget exhausted: exit 1 */
    LS_ERR_INTERNAL = 5  /* a bug: exit 1 */
};

struct ls_error {
    int code;            /* enum ls_status */
    char file[256];      /* "" when not about a file */
    int line;            /* 1-based, 0 = unknown */
    int col;             /* 1-based, 0 = unknown */
    char msg[768];
};

void ls_error_clear(struct ls_error *err);

/* Fill err (if non-NULL) and return code. file may be NULL. */
int ls_error_set(struct ls_error *err, int code, const char *file, int line, int col,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Shorthand for errors without a location. */
int ls_error_msg(struct ls_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "file:line:col: msg" (parts that are unknown are left out). Returns buf. */
const char *ls_error_format(const struct ls_error *err, char *buf, size_t n);

/* Process exit code for a status: 0 ok, 2 bad input, 1 anything else. */
int ls_exit_code(int code);

#endif
