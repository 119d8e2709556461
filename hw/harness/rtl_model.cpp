// The thin C++ layer Verilator requires: wraps each generated model (one per array size,
// listed in the generated rtl_models.inc as RTL_MODEL(prefix, rows, cols)) behind the C
// API of rtl_model.h. Everything else of the co-simulation is C.
#include "rtl_model.h"

#include <cstdio>
#include <cstring>
#include <memory>
#include <new>

#include "verilated.h"

#include "rtl_models_includes.inc" // #include "Vte<N>.h" and its ___024root.h, per size

namespace {

template <class T, std::size_t N> constexpr uint32_t count(const VlUnpacked<T, N> &)
{
    return static_cast<uint32_t>(N);
}

struct Base {
    virtual ~Base() = default;
    virtual void configure(const rtl_config &c) = 0;
    virtual uint32_t sbuf_parts() const = 0;
    virtual uint32_t sbuf_elems() const = 0;
    virtual uint32_t psum_parts() const = 0;
    virtual uint32_t psum_entries() const = 0;
    virtual uint32_t hbm_elems() const = 0;
    virtual int16_t &sbuf(uint32_t p, uint32_t a) = 0;
    virtual int32_t &psum(uint32_t p, uint32_t a) = 0;
    virtual int16_t &hbm(uint32_t a) = 0;
    virtual long run(const rtl_instr *prog, size_t n, rtl_retire *out, size_t cap,
                     uint64_t max_cycles, uint64_t *cycles) = 0;
};

template <class V, unsigned ROWS, unsigned COLS> struct Model final : Base {
    std::unique_ptr<VerilatedContext> ctx;
    std::unique_ptr<V> v;

    Model(const rtl_config &c) : ctx(new VerilatedContext), v(new V(ctx.get(), "te"))
    {
        configure(c);
        v->clk = 0;
        v->rst = 1;
        v->start = 0;
        v->prog_we = 0;
        v->eval();
        tick();
        tick();
        v->rst = 0;
        v->eval();
    }
    void configure(const rtl_config &c) override
    {
        v->cfg_bg = c.background_load ? 1 : 0;
        v->cfg_ls_shift = c.ls_speedup >= 4 ? 2 : c.ls_speedup >= 2 ? 1 : 0;
        v->cfg_min_ii = c.mm_min_ii;
        v->cfg_passes = c.fp32_passes;
        v->cfg_dve_min_ii = c.dve_min_ii;
        v->cfg_dma_lat = c.dma_latency;
        v->cfg_dma_rate = c.dma_rate;
        v->cfg_dma_dmin = c.dma_desc_min;
    }
    ~Model() override { v->final(); }

    void tick()
    {
        v->clk = 1;
        v->eval();
        v->clk = 0;
        v->eval();
    }

    auto &root() { return *v->rootp; }
    uint32_t sbuf_parts() const override { return count(v->rootp->tensor_engine__DOT__u_sbuf__DOT__mem); }
    uint32_t sbuf_elems() const override { return count(v->rootp->tensor_engine__DOT__u_sbuf__DOT__mem[0]); }
    uint32_t psum_parts() const override { return count(v->rootp->tensor_engine__DOT__u_psum__DOT__mem); }
    uint32_t psum_entries() const override { return count(v->rootp->tensor_engine__DOT__u_psum__DOT__mem[0]); }
    uint32_t hbm_elems() const override { return count(v->rootp->tensor_engine__DOT__u_dma__DOT__hbm); }
    int16_t &sbuf(uint32_t p, uint32_t a) override
    {
        return reinterpret_cast<int16_t &>(root().tensor_engine__DOT__u_sbuf__DOT__mem[p][a]);
    }
    int32_t &psum(uint32_t p, uint32_t a) override
    {
        return reinterpret_cast<int32_t &>(root().tensor_engine__DOT__u_psum__DOT__mem[p][a]);
    }
    int16_t &hbm(uint32_t a) override
    {
        return reinterpret_cast<int16_t &>(root().tensor_engine__DOT__u_dma__DOT__hbm[a]);
    }

    void collect(rtl_retire *out, size_t cap, size_t &k)
    {
        auto put = [&](bool valid, unsigned id, uint8_t unit, uint32_t s, uint32_t e) {
            if (!valid)
                return;
            if (k < cap)
                out[k] = rtl_retire{static_cast<uint16_t>(id), unit, s, e};
            k++;
        };
        put(v->ret_ls_valid, v->ret_ls_id, RTL_UNIT_LS, v->ret_ls_start, v->ret_ls_end);
        put(v->ret_mm_valid, v->ret_mm_id, RTL_UNIT_MM, v->ret_mm_start, v->ret_mm_end);
        put(v->ret_dve_valid, v->ret_dve_id, RTL_UNIT_DVE, v->ret_dve_start, v->ret_dve_end);
        put(v->ret_dma_valid, v->ret_dma_id, RTL_UNIT_DMA, v->ret_dma_start, v->ret_dma_end);
    }

    long run(const rtl_instr *prog, size_t n, rtl_retire *out, size_t cap, uint64_t max_cycles,
             uint64_t *cycles) override
    {
        // clear the control state (weights and memories stay), then load the program
        v->rst = 1;
        tick();
        v->rst = 0;
        for (size_t i = 0; i < n; i++) {
            const rtl_instr &in = prog[i];
            v->prog_we = 1;
            v->prog_addr = static_cast<uint16_t>(i);
            v->prog_op = in.op;
            v->prog_id = in.id;
            v->prog_acc = in.acc;
            v->prog_fp32 = in.fp32;
            v->prog_dir = in.dir;
            v->prog_k = in.k;
            v->prog_m = in.m;
            v->prog_t = in.t;
            v->prog_p0 = in.p0;
            v->prog_p1 = in.p1;
            v->prog_src = in.src;
            v->prog_dst = in.dst;
            v->prog_s1 = in.s1;
            v->prog_s2 = in.s2;
            tick();
        }
        v->prog_we = 0;
        v->prog_len = static_cast<uint16_t>(n);
        v->start = 1;
        tick();
        v->start = 0;
        v->eval();
        size_t k = 0;
        uint64_t c = 0;
        while (!v->done) {
            if (c >= max_cycles) {
                *cycles = c;
                return -1;
            }
            tick();
            c++;
            collect(out, cap, k);
        }
        // the last retire pulses are registered: one more edge shows nothing new
        *cycles = c;
        return static_cast<long>(k);
    }
};

struct Entry {
    unsigned rows, cols;
    Base *(*make)(const rtl_config &);
};

#define RTL_MODEL(prefix, r, c) \
    {r, c, [](const rtl_config &cfg) -> Base * { return new Model<prefix, r, c>(cfg); }},
const Entry kModels[] = {
#include "rtl_models.inc"
};
#undef RTL_MODEL

} // namespace

struct rtl_model {
    Base *impl;
    rtl_config cfg;
};

static const char *config_error(const rtl_config *cfg)
{
    unsigned port = cfg->cols > 32 ? cfg->cols : 32;
    if (cfg->ls_speedup != 1 && cfg->ls_speedup != 2 && cfg->ls_speedup != 4)
        return "ls_speedup must be 1, 2 or 4";
    if (cfg->fp32_passes < 1 || cfg->fp32_passes > 255)
        return "fp32_passes must be 1..255";
    if (cfg->mm_min_ii > 65535 || cfg->dve_min_ii > 65535)
        return "mm_min_ii and dve_min_ii must be below 65536";
    if (cfg->dma_latency < 1)
        return "dma latency must be at least 1 cycle";
    if (cfg->dma_rate < 2 || cfg->dma_rate % 2 || cfg->dma_rate > 2 * port)
        return "dma rate must be an even number of bytes per cycle, at most 2 * max(cols, 32)";
    return nullptr;
}

extern "C" {

int rtl_model_set_config(struct rtl_model *m, const struct rtl_config *cfg)
{
    if (cfg->rows != m->cfg.rows || cfg->cols != m->cfg.cols || config_error(cfg))
        return -1;
    m->impl->configure(*cfg);
    m->cfg = *cfg;
    return 0;
}

size_t rtl_model_sizes(uint32_t *rows, uint32_t *cols, size_t max)
{
    size_t n = sizeof kModels / sizeof kModels[0];
    for (size_t i = 0; i < n && i < max; i++) {
        rows[i] = kModels[i].rows;
        cols[i] = kModels[i].cols;
    }
    return n;
}

struct rtl_model *rtl_model_create(const struct rtl_config *cfg, char *msg, size_t msgn)
{
    const Entry *e = nullptr;
    for (const Entry &x : kModels)
        if (x.rows == cfg->rows && x.cols == cfg->cols)
            e = &x;
    if (!e) {
        std::snprintf(msg, msgn, "no RTL model of size %ux%u was built (LAYSIM_RTL_SIZES)",
                      cfg->rows, cfg->cols);
        return nullptr;
    }
    const char *bad = config_error(cfg);
    if (bad) {
        std::snprintf(msg, msgn, "%s", bad);
        return nullptr;
    }
    rtl_model *m = new (std::nothrow) rtl_model;
    if (!m) {
        std::snprintf(msg, msgn, "out of memory");
        return nullptr;
    }
    m->impl = e->make(*cfg);
    m->cfg = *cfg;
    return m;
}

void rtl_model_destroy(struct rtl_model *m)
{
    if (!m)
        return;
    delete m->impl;
    delete m;
}

uint32_t rtl_model_sbuf_partitions(const struct rtl_model *m) { return m->impl->sbuf_parts(); }
uint32_t rtl_model_sbuf_elems(const struct rtl_model *m) { return m->impl->sbuf_elems(); }
uint32_t rtl_model_psum_partitions(const struct rtl_model *m) { return m->impl->psum_parts(); }
uint32_t rtl_model_psum_entries(const struct rtl_model *m) { return m->impl->psum_entries(); }
uint32_t rtl_model_hbm_elems(const struct rtl_model *m) { return m->impl->hbm_elems(); }

void rtl_model_sbuf_write(struct rtl_model *m, uint32_t part, uint32_t addr, const int16_t *v,
                          size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (part < m->impl->sbuf_parts() && addr + i < m->impl->sbuf_elems())
            m->impl->sbuf(part, static_cast<uint32_t>(addr + i)) = v[i];
}

void rtl_model_sbuf_read(const struct rtl_model *m, uint32_t part, uint32_t addr, int16_t *v,
                         size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = part < m->impl->sbuf_parts() && addr + i < m->impl->sbuf_elems()
                   ? m->impl->sbuf(part, static_cast<uint32_t>(addr + i)) : 0;
}

void rtl_model_psum_write(struct rtl_model *m, uint32_t part, uint32_t addr, const int32_t *v,
                          size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (part < m->impl->psum_parts() && addr + i < m->impl->psum_entries())
            m->impl->psum(part, static_cast<uint32_t>(addr + i)) = v[i];
}

void rtl_model_psum_read(const struct rtl_model *m, uint32_t part, uint32_t addr, int32_t *v,
                         size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = part < m->impl->psum_parts() && addr + i < m->impl->psum_entries()
                   ? m->impl->psum(part, static_cast<uint32_t>(addr + i)) : 0;
}

void rtl_model_hbm_write(struct rtl_model *m, uint32_t addr, const int16_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (addr + i < m->impl->hbm_elems())
            m->impl->hbm(static_cast<uint32_t>(addr + i)) = v[i];
}

void rtl_model_hbm_read(const struct rtl_model *m, uint32_t addr, int16_t *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = addr + i < m->impl->hbm_elems() ? m->impl->hbm(static_cast<uint32_t>(addr + i)) : 0;
}

long rtl_model_run(struct rtl_model *m, const struct rtl_instr *prog, size_t n,
                   struct rtl_retire *out, size_t cap, uint64_t max_cycles, uint64_t *cycles)
{
    if (n > 256)
        return -1;
    return m->impl->run(prog, n, out, cap, max_cycles, cycles);
}

} // extern "C"
