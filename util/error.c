#include "util/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ls_error_clear(struct ls_error *err)
{
    if (err)
        memset(err, 0, sizeof *err);
}

static int set_v(struct ls_error *err, int code, const char *file, int line, int col,
                 const char *fmt, va_list ap)
{
    if (!err)
        return code;
    err->code = code;
    snprintf(err->file, sizeof err->file, "%s", file ? file : "");
    err->line = line;
    err->col = col;
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    return code;
}

int ls_error_set(struct ls_error *err, int code, const char *file, int line, int col,
                 const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_v(err, code, file, line, col, fmt, ap);
    va_end(ap);
    return code;
}

int ls_error_msg(struct ls_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_v(err, code, NULL, 0, 0, fmt, ap);
    va_end(ap);
    return code;
}

const char *ls_error_format(const struct ls_error *err, char *buf, size_t n)
{
    if (!err || n == 0)
        return buf;
    if (err->file[0] && err->line > 0 && err->col > 0)
        snprintf(buf, n, "%s:%d:%d: %s", err->file, err->line, err->col, err->msg);
    else if (err->file[0] && err->line > 0)
        snprintf(buf, n, "%s:%d: %s", err->file, err->line, err->msg);
    else if (err->file[0])
        snprintf(buf, n, "%s: %s", err->file, err->msg);
    else
        snprintf(buf, n, "%s", err->msg);
    return buf;
}

int ls_exit_code(int code)
{
    if (code == LS_OK)
        return 0;
    return code == LS_ERR_INPUT ? 2 : 1;
}
