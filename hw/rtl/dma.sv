// dma: one descriptor-driven DMA engine between an HBM model and SBUF.
//
// A transfer (one DMA instruction) covers P partitions, each `chunks` contiguous chunks of
// `chunk_bytes`; its descriptors (partition-major, chunk-minor) are generated here and
// served back to back. Timing, in DMA-engine cycles (the base clock domain, docs/rtl.md):
//  - a transfer is accepted into a latency pipeline (up to QD transfers at once) and its
//    first descriptor may begin LAT cycles after acceptance (descriptor fetch/setup);
//  - the data mover serves one transfer at a time; each descriptor takes
//    max(ceil(bytes / RATE), DMIN) cycles, moving RATE bytes per cycle (the last beat may
//    be partial) and then idling until DMIN has passed;
//  - the transfer reports start = (first data cycle) - LAT and end = the cycle after its
//    last descriptor, the simulator's definitions for a transfer on one engine.
// RATE is an even number of bytes per cycle, at most 2*PORT; LAT >= 1.
module dma #(
    parameter int PARTS = 128,
    parameter int PORT = 128,
    parameter int HBM_BYTES = 1 << 21,
    parameter int QD = 16
) (
    input  logic                          clk,
    input  logic                          rst,
    input  logic [31:0]                   cycle,
    input  logic [31:0]                   cfg_lat,
    input  logic [15:0]                   cfg_rate,
    input  logic [31:0]                   cfg_dmin,
    // transfer issue
    input  logic                          issue,
    output logic                          can_issue,
    input  logic [15:0]                   in_id,
    input  logic                          in_dir,        // 0: HBM -> SBUF, 1: SBUF -> HBM
    input  logic [15:0]                   in_parts,
    input  logic [15:0]                   in_chunks,
    input  logic [15:0]                   in_chunk_bytes,
    input  logic [31:0]                   in_hbm,        // element address
    input  logic [31:0]                   in_hbm_pstride,
    input  logic [31:0]                   in_hbm_cstride,
    input  logic [15:0]                   in_sbuf_part,
    input  logic [31:0]                   in_sbuf_addr,
    output logic                          busy,
    // SBUF
    output logic [15:0]                   rpart,
    output logic [31:0]                   raddr,
    input  logic [PORT*16-1:0]            rdata,
    output logic                          we,
    output logic [15:0]                   wpart,
    output logic [31:0]                   waddr,
    output logic [PORT*16-1:0]            wdata,
    output logic [PORT-1:0]               wmask,
    // retire
    output logic                          ret_valid,
    output logic [15:0]                   ret_id,
    output logic [31:0]                   ret_start,
    output logic [31:0]                   ret_end
);
    localparam int HELEMS = HBM_BYTES / 2;
    localparam int HAW = $clog2(HELEMS);
    localparam int QW = $clog2(QD);

    logic [15:0] hbm [HELEMS] /*verilator public_flat_rw*/;

    // ---- latency pipeline: a FIFO of accepted transfers with their ready cycle ----
    typedef struct packed {
        logic [15:0] id;
        logic        dir;
        logic [15:0] parts, chunks, chunk_bytes, sbuf_part;
        logic [31:0] hbm, pstride, cstride, sbuf_addr, ready;
    } xfer_t;
    xfer_t q [QD];
    logic [QW-1:0] head, tail;
    logic [QW:0]   count;

    // ---- the data mover ----
    logic        active;
    xfer_t       x;
    logic [15:0] p, k;         // partition and chunk of the current descriptor
    logic [31:0] dc;           // cycles into the current descriptor
    logic [15:0] moved;        // elements of the current descriptor already moved
    logic [31:0] begin_cycle;

    logic        c_on, c_begin;
    xfer_t       c_x;
    logic [15:0] c_p, c_k, c_moved, c_n, c_elems, half;
    logic [31:0] c_dc, c_begin_cycle, c_hbm, c_sbuf;
    logic        c_desc_done, c_last;

    assign can_issue = count < (QW+1)'(QD);
    assign busy = active || count != '0;
    assign half = cfg_rate >> 1;

    always_comb begin
        c_begin = !active && count != '0 && cycle >= q[head].ready;
        c_on = active || c_begin;
        if (c_begin) begin
            c_x = q[head]; c_p = 16'd0; c_k = 16'd0; c_dc = 32'd0; c_moved = 16'd0;
            c_begin_cycle = cycle;
        end else begin
            c_x = x; c_p = p; c_k = k; c_dc = dc; c_moved = moved; c_begin_cycle = begin_cycle;
        end
        c_elems = c_x.chunk_bytes >> 1;
        c_n = (c_elems - c_moved) < half ? (c_elems - c_moved) : half;
        if (c_moved >= c_elems)
            c_n = 16'd0;
        c_hbm = c_x.hbm + {16'd0, c_p} * c_x.pstride + {16'd0, c_k} * c_x.cstride
                + {16'd0, c_moved};
        c_sbuf = c_x.sbuf_addr + {16'd0, c_k} * {16'd0, c_elems} + {16'd0, c_moved};
        c_desc_done = (c_moved + c_n >= c_elems) && (c_dc + 32'd1 >= cfg_dmin);
        c_last = c_desc_done && c_k + 16'd1 == c_x.chunks && c_p + 16'd1 == c_x.parts;

        raddr = c_sbuf;
        rpart = c_x.sbuf_part + c_p;
        we = c_on && !c_x.dir && c_n != 16'd0;
        wpart = c_x.sbuf_part + c_p;
        waddr = c_sbuf;
        wdata = '0;
        wmask = '0;
        for (int i = 0; i < PORT; i++)
            if (16'(i) < c_n) begin
                wdata[i*16 +: 16] = hbm[HAW'(c_hbm + 32'(i))];
                wmask[i] = 1'b1;
            end
    end

    always_ff @(posedge clk) begin
        ret_valid <= 1'b0;
        if (rst) begin
            active <= 1'b0;
            head <= '0;
            tail <= '0;
            count <= '0;
        end else begin
            if (issue && can_issue) begin
                q[tail] <= '{id: in_id, dir: in_dir, parts: in_parts, chunks: in_chunks,
                             chunk_bytes: in_chunk_bytes, sbuf_part: in_sbuf_part,
                             hbm: in_hbm, pstride: in_hbm_pstride, cstride: in_hbm_cstride,
                             sbuf_addr: in_sbuf_addr, ready: cycle + cfg_lat};
                tail <= tail + 1'b1;
            end
            if (c_begin)
                head <= head + 1'b1;
            count <= count + (QW+1)'(issue && can_issue) - (QW+1)'(c_begin);
            if (c_on) begin
                // SBUF -> HBM: the partition's word from port B lands in the HBM model
                if (c_x.dir)
                    for (int i = 0; i < PORT; i++)
                        if (16'(i) < c_n)
                            hbm[HAW'(c_hbm + 32'(i))] = rdata[i*16 +: 16];
                x <= c_x;
                begin_cycle <= c_begin_cycle;
                if (c_desc_done) begin
                    dc <= 32'd0;
                    moved <= 16'd0;
                    if (c_k + 16'd1 == c_x.chunks) begin
                        k <= 16'd0;
                        p <= c_p + 16'd1;
                    end else begin
                        k <= c_k + 16'd1;
                        p <= c_p;
                    end
                end else begin
                    dc <= c_dc + 32'd1;
                    moved <= c_moved + c_n;
                    k <= c_k;
                    p <= c_p;
                end
                active <= !c_last;
                if (c_last) begin
                    ret_valid <= 1'b1;
                    ret_id <= c_x.id;
                    ret_start <= c_begin_cycle - cfg_lat;
                    ret_end <= cycle + 32'd1;
                end
            end
        end
    end
endmodule
