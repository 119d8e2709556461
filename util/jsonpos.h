/* util/jsonpos: where a field sits in JSON text. jansson reports positions only for syntax
 * errors, not for values, so an error about a field's value (out of range, wrong type)
 * finds the field's line and column here, in the text the value was parsed from. */
#ifndef LS_UTIL_JSONPOS_H
#define LS_UTIL_JSONPOS_H

#include <stddef.h>

/* Find the value at `path` in well-formed JSON text: member keys joined by '.', each
 * optionally followed by array indices, e.g. "text_config.hidden_size" or
 * "entries[3].opcode". On success sets *line and *col (1-based, col in bytes) to the
 * member's key (or to the element, when the path ends in an index) and returns 0;
 * returns -1 when the path is absent. */
int ls_json_locate(const char *text, size_t len, const char *path, int *line, int *col);

#endif
