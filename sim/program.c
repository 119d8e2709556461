/* sim/program: the in-memory program and its builder API. */
#include "sim/program.h"
#include "sim/program_int.h"
#include "sim/target.h"

#include <stdlib.h>
#include <string.h>

struct sim_program *sim_program_new(void)
{
    struct sim_program *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    ls_intern_init(&p->strs);
    ls_intern_init(&p->label_names);
    return p;
}

void sim_program_free(struct sim_program *p)
{
    if (!p)
        return;
    LS_VEC_FREE(&p->ins);
    LS_VEC_FREE(&p->deps);
    LS_VEC_FREE(&p->sid);
    LS_VEC_FREE(&p->lines);
    LS_VEC_FREE(&p->labels);
    LS_VEC_FREE(&p->label_index);
    ls_intern_free(&p->strs);
    ls_intern_free(&p->label_names);
    free(p->file);
    free(p);
}

int64_t sim_program_add(struct sim_program *p, const struct sim_instr *in, const uint32_t *deps,
                        size_t ndeps, struct ls_error *err)
{
    size_t idx = p->ins.len;
    if (idx >= UINT32_MAX - 1)
        return ls_error_msg(err, LS_ERR_LIMIT, "program has too many instructions"), -1;
    if (ndeps > UINT16_MAX)
        return ls_error_msg(err, LS_ERR_INPUT, "instruction %zu: more than %u dependencies", idx,
                            UINT16_MAX), -1;
    for (size_t i = 0; i < ndeps; i++)
        if (deps[i] >= idx)
            return ls_error_msg(err, LS_ERR_INPUT,
                                "instruction %zu: dependency %u is not an earlier instruction",
                                idx, deps[i]), -1;
    if (in->engine >= LS_ENGINE_COUNT || in->queue >= SIM_MAX_QUEUES)
        return ls_error_msg(err, LS_ERR_INPUT, "instruction %zu: bad engine or DMA queue", idx), -1;
    if (LS_VEC_RESERVE(&p->ins, idx + 1) || LS_VEC_RESERVE(&p->deps, p->deps.len + ndeps) ||
        LS_VEC_RESERVE(&p->sid, idx + 1))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory"), -1;
    struct sim_instr c = *in;
    c.ndeps = (uint16_t)ndeps;
    c.deps_off = (uint32_t)p->deps.len;
    if (p->deps.len + ndeps > UINT32_MAX)
        return ls_error_msg(err, LS_ERR_LIMIT, "program has too many dependencies"), -1;
    if (ndeps)
        memcpy(p->deps.data + p->deps.len, deps, ndeps * sizeof *deps);
    p->deps.len += ndeps;
    p->ins.data[p->ins.len++] = c;
    p->sid.data[p->sid.len++] =
        (uint8_t)(in->engine == LS_ENGINE_DMA ? SIM_STREAM_DMA0 + in->queue : in->engine);
    return (int64_t)idx;
}

int32_t sim_program_tag(struct sim_program *p, const char *name)
{
    return ls_intern_add(&p->strs, name, strlen(name));
}

int sim_program_label(struct sim_program *p, uint32_t index, const char *label,
                      struct ls_error *err)
{
    if (index >= p->ins.len)
        return ls_error_msg(err, LS_ERR_INPUT, "label '%s': no instruction %u", label, index);
    size_t n = strlen(label);
    if (ls_intern_find(&p->label_names, label, n) >= 0)
        return ls_error_msg(err, LS_ERR_INPUT, "label '%s' is defined twice", label);
    int32_t id = ls_intern_add(&p->label_names, label, n);
    if (id < 0 || LS_VEC_RESERVE(&p->labels, p->ins.len) || LS_VEC_PUSH(&p->label_index, index))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    while (p->labels.len < p->ins.len)
        p->labels.data[p->labels.len++] = -1;
    p->labels.data[index] = id;
    return 0;
}

size_t sim_program_count(const struct sim_program *p)
{
    return p->ins.len;
}

const struct sim_instr *sim_program_instr(const struct sim_program *p, size_t i)
{
    return &p->ins.data[i];
}

const uint32_t *sim_program_deps(const struct sim_program *p, size_t i, size_t *ndeps)
{
    const struct sim_instr *in = &p->ins.data[i];
    *ndeps = in->ndeps;
    return p->deps.data ? p->deps.data + in->deps_off : NULL;
}

const struct ls_intern *sim_program_strings(const struct sim_program *p)
{
    return &p->strs;
}

const char *sim_program_file(const struct sim_program *p)
{
    return p->file;
}

int sim_program_line(const struct sim_program *p, size_t i)
{
    return i < p->lines.len ? p->lines.data[i] : 0;
}

const char *sim_program_label_of(const struct sim_program *p, size_t i)
{
    if (i >= p->labels.len || p->labels.data[i] < 0)
        return NULL;
    return ls_intern_str(&p->label_names, p->labels.data[i]);
}

const char *sim_program_where(const struct sim_program *p, size_t i, char *buf, size_t n)
{
    const struct sim_instr *in = &p->ins.data[i];
    const char *label = sim_program_label_of(p, i);
    snprintf(buf, n, "instruction %zu%s%s%s (%s %s)", i, label ? " '" : "", label ? label : "",
             label ? "'" : "", ls_engine_name((enum ls_engine)in->engine),
             sim_opcode_name((enum sim_opcode)in->opcode));
    return buf;
}
