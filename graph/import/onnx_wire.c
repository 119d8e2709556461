/* graph/import/onnx_wire: find the first malformed field of a protobuf message by walking
 * its wire format with the generated descriptors, so a bad file is reported with a byte
 * offset (protobuf-c's unpack only says that it failed). */
#include "graph/import/onnx_int.h"

#define WIRE_MAX_DEPTH 64

struct wire {
    const char *file;
    const uint8_t *base;
    struct ls_error *err;
};

static int wire_bad(struct wire *w, const uint8_t *at, const char *msg, const char *field)
{
    return ls_error_set(w->err, LS_ERR_INPUT, w->file, 0, 0,
                        "malformed protobuf at byte offset %zu%s%s%s: %s",
                        (size_t)(at - w->base), field ? " (field '" : "", field ? field : "",
                        field ? "')" : "", msg);
}

/* Read a varint at *p (< end); 0 or -1 when truncated or longer than 10 bytes. */
static int varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*p >= end)
            return -1;
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << (shift < 64 ? shift : 0);
        if (!(b & 0x80))
            return 0;
    }
    return -1;
}

static int wire_type_ok(const ProtobufCFieldDescriptor *f, unsigned wt)
{
    if (wt == 2)   /* length-delimited: strings, bytes, messages and packed repeated */
        return f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES ||
               f->type == PROTOBUF_C_TYPE_MESSAGE || f->label == PROTOBUF_C_LABEL_REPEATED;
    switch (f->type) {
    case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_DOUBLE:
        return wt == 1;
    case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FLOAT:
        return wt == 5;
    case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES: case PROTOBUF_C_TYPE_MESSAGE:
        return 0;
    default:
        return wt == 0;
    }
}

static int walk(struct wire *w, const uint8_t *p, const uint8_t *end,
                const ProtobufCMessageDescriptor *desc, int depth)
{
    if (depth > WIRE_MAX_DEPTH)
        return wire_bad(w, p, "messages nested too deeply", NULL);
    while (p < end) {
        const uint8_t *at = p;
        uint64_t tag, v;
        if (varint(&p, end, &tag))
            return wire_bad(w, at, "truncated field tag", NULL);
        unsigned wt = (unsigned)(tag & 7);
        uint64_t num = tag >> 3;
        if (num == 0 || num > 536870911u)
            return wire_bad(w, at, "field number out of range", NULL);
        const ProtobufCFieldDescriptor *f =
            desc ? protobuf_c_message_descriptor_get_field(desc, (unsigned)num) : NULL;
        const char *fname = f ? f->name : NULL;
        if (f && !wire_type_ok(f, wt))
            return wire_bad(w, at, "wrong wire type for this field", fname);
        switch (wt) {
        case 0:
            if (varint(&p, end, &v))
                return wire_bad(w, at, "truncated varint", fname);
            break;
        case 1:
        case 5:
            if ((size_t)(end - p) < (wt == 1 ? 8u : 4u))
                return wire_bad(w, at, "truncated fixed-width value", fname);
            p += wt == 1 ? 8 : 4;
            break;
        case 2:
            if (varint(&p, end, &v))
                return wire_bad(w, at, "truncated length", fname);
            if (v > (uint64_t)(end - p))
                return wire_bad(w, at, "length runs past the end of the data", fname);
            if (f && f->type == PROTOBUF_C_TYPE_MESSAGE &&
                walk(w, p, p + v, f->descriptor, depth + 1))
                return LS_ERR_INPUT;
            p += v;
            break;
        default:
            return wire_bad(w, at, "unsupported wire type (groups or 6/7)", fname);
        }
    }
    return 0;
}

int ox_wire_check(const char *file, const uint8_t *buf, size_t len,
                  const ProtobufCMessageDescriptor *desc, struct ls_error *err)
{
    struct wire w = {file, buf, err};
    return walk(&w, buf, buf + len, desc, 0);
}
