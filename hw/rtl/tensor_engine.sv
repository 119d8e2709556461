// tensor_engine: the top. A program memory of instructions (load-stationary, multiply-
// moving, PE transpose, DVE 32x32 transpose, DMA transfer), an in-order front end, the PE
// sequencer and systolic array, PSUM, SBUF, the DVE transposer and one DMA engine, and one
// retire port per unit reporting each instruction's id, start (issue cycle) and exclusive end.
//
// Front end: instructions issue in program order, at most one per cycle, except that a
// load-stationary may issue in the same cycle as the matmul (or transpose matmul phase)
// before it (the simulator lets the next weights start loading the moment the previous
// ones are swapped in). Instructions of different units do not overlap: an instruction
// waits until the other units are idle (cosim sequences are single-unit; docs/rtl.md).
// The whole design runs on one clock; the harness converts each unit's cycles into its own
// clock domain (PE clock for PE, DVE clock for the transposer, base clock for DMA).
module tensor_engine #(
    parameter int ROWS = 32,
    parameter int COLS = 32,
    parameter int SBUF_PARTS = 32,
    parameter int SBUF_BYTES = 16384,
    parameter int PSUM_BANKS = 8,
    parameter int PSUM_BANK_BYTES = 2048,
    parameter int HBM_BYTES = 1 << 20,
    parameter int PROG_DEPTH = 256,
    parameter int MAX_S = 4
) (
    input  logic        clk,
    input  logic        rst,
    // static configuration (set before start)
    input  logic        cfg_bg,          // pe.background_load
    input  logic [1:0]  cfg_ls_shift,    // log2(pe.ls_speedup)
    input  logic [15:0] cfg_min_ii,      // pe.mm_min_ii
    input  logic [7:0]  cfg_passes,      // pe.fp32_passes
    input  logic [15:0] cfg_dve_min_ii,  // vec.min_ii
    input  logic [31:0] cfg_dma_lat,     // DMA cycles
    input  logic [15:0] cfg_dma_rate,    // bytes per DMA cycle (even)
    input  logic [31:0] cfg_dma_dmin,    // minimum cycles per descriptor
    // program memory write port
    input  logic        prog_we,
    input  logic [15:0] prog_addr,
    input  logic [2:0]  prog_op,         // 0 LS, 1 MM, 2 PE transpose, 3 DVE transpose, 4 DMA
    input  logic [15:0] prog_id,
    input  logic        prog_acc,
    input  logic        prog_fp32,
    input  logic        prog_dir,
    input  logic [15:0] prog_k, prog_m, prog_t, prog_p0, prog_p1,
    input  logic [31:0] prog_src, prog_dst, prog_s1, prog_s2,
    input  logic [15:0] prog_len,
    input  logic        start,
    // status
    output logic [31:0] cycle,
    output logic        done,
    // retire ports
    output logic        ret_ls_valid, ret_mm_valid, ret_dve_valid, ret_dma_valid,
    output logic [15:0] ret_ls_id, ret_mm_id, ret_dve_id, ret_dma_id,
    output logic [31:0] ret_ls_start, ret_mm_start, ret_dve_start, ret_dma_start,
    output logic [31:0] ret_ls_end, ret_mm_end, ret_dve_end, ret_dma_end
);
    localparam int PORT = COLS > 32 ? COLS : 32;
    localparam int BW = $clog2(ROWS + 1) + 1;
    localparam int CTLW = 83;
    localparam int PAW = $clog2(PROG_DEPTH);

    typedef struct packed {
        logic [2:0]  op;
        logic [15:0] id;
        logic        acc, fp32, dir;
        logic [15:0] k, m, t, p0, p1;
        logic [31:0] src, dst, s1, s2;
    } instr_t;

    instr_t prog [PROG_DEPTH];
    logic [15:0] pc, len;
    logic        running;

    always_ff @(posedge clk)
        if (prog_we)
            prog[prog_addr[PAW-1:0]] <= '{op: prog_op, id: prog_id, acc: prog_acc,
                                          fp32: prog_fp32, dir: prog_dir, k: prog_k,
                                          m: prog_m, t: prog_t, p0: prog_p0, p1: prog_p1,
                                          src: prog_src, dst: prog_dst, s1: prog_s1,
                                          s2: prog_s2};

    // ---------------- units ----------------
    logic can_ls, can_mm, can_tp, tp_mm_now, pe_idle;
    logic ls_go, mm_go, tp_go, dve_go, dma_go;
    logic dve_busy, dma_busy, dma_can;
    instr_t e0, e1, ls_src_i;

    logic [31:0] raddr_a, raddr_r, pe_raddr_r, dve_raddr, dma_raddr;
    logic [15:0] rpart_r, pe_rpart_r, dve_rpart, dma_rpart;
    logic [15:0] rdata_a [SBUF_PARTS];
    logic [PORT*16-1:0] rdata_r [MAX_S];
    logic [15:0] rdata_c [32];
    logic        we, dve_we, dma_we;
    logic [15:0] wpart, dve_wpart, dma_wpart;
    logic [31:0] waddr, dve_waddr, dma_waddr;
    logic [PORT*16-1:0] wdata, dve_wdata, dma_wdata;
    logic [PORT-1:0] wmask, dve_wmask, dma_wmask;

    logic [ROWS-1:0][15:0] mv_data;
    logic mv_swap, wl_valid;
    logic [CTLW-1:0] mv_ctl;
    logic [BW-1:0] wl_beat;
    logic [MAX_S-1:0][COLS-1:0][15:0] wl_data;
    logic [COLS-1:0][31:0] psum_out;
    logic [COLS-1:0][CTLW-1:0] ctl_col;

    // ---------------- front end ----------------
    function automatic logic [1:0] unit_of(input logic [2:0] op);
        return op <= 3'd2 ? 2'd0 : op == 3'd3 ? 2'd1 : 2'd2;
    endfunction

    always_comb begin
        logic has0, has1, free0;
        e0 = prog[pc[PAW-1:0]];
        e1 = prog[PAW'(pc + 16'd1)];
        has0 = running && pc < len;
        has1 = running && pc + 16'd1 < len;
        case (unit_of(e0.op))
            2'd0: free0 = !dve_busy && !dma_busy;
            2'd1: free0 = pe_idle && !dma_busy;
            default: free0 = pe_idle && !dve_busy;
        endcase
        ls_go = 1'b0; mm_go = 1'b0; tp_go = 1'b0; dve_go = 1'b0; dma_go = 1'b0;
        ls_src_i = e0;
        if (has0 && free0) begin
            case (e0.op)
                3'd0: ls_go = can_ls;
                3'd1: mm_go = can_mm;
                3'd2: tp_go = can_tp;
                3'd3: dve_go = !dve_busy;
                default: dma_go = dma_can;
            endcase
        end
        // dual issue: a load-stationary (or a transpose, which starts with one) right
        // behind an issuing matmul
        if (mm_go && cfg_bg && has1 && e1.op == 3'd0 && can_ls) begin
            ls_go = 1'b1;
            ls_src_i = e1;
        end else if (mm_go && cfg_bg && has1 && e1.op == 3'd2 && can_tp) begin
            tp_go = 1'b1;
            ls_src_i = e1;
        end
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            running <= 1'b0;
            pc <= 16'd0;
            cycle <= 32'd0;
        end else if (start) begin
            running <= 1'b1;
            pc <= 16'd0;
            len <= prog_len;
            cycle <= 32'd0;
        end else if (running) begin
            cycle <= cycle + 32'd1;
            pc <= pc + 16'(ls_go || mm_go || tp_go || dve_go || dma_go)
                     + 16'(mm_go && (ls_go || tp_go));
        end
    end

    assign done = running && pc >= len && pe_idle && !dve_busy && !dma_busy;

    pe_ctrl #(.ROWS(ROWS), .COLS(COLS), .PARTS(SBUF_PARTS), .PORT(PORT), .MAX_S(MAX_S),
              .BW(BW), .CTLW(CTLW)) u_pe_ctrl (
        .clk, .rst, .cycle, .cfg_bg, .cfg_ls_shift, .cfg_min_ii, .cfg_passes,
        .ls_go, .mm_go, .tp_go,
        .ls_id(ls_src_i.id), .ls_k(ls_src_i.k), .ls_m(ls_src_i.m), .ls_src(ls_src_i.src),
        .mm_id(e0.id), .mm_k(e0.k), .mm_t(e0.t), .mm_src(e0.src), .mm_dst(e0.dst),
        .mm_acc(e0.acc), .mm_fp32(e0.fp32),
        .tp_id(ls_src_i.id), .tp_k(ls_src_i.k), .tp_f(ls_src_i.m), .tp_src(ls_src_i.src),
        .tp_dst(ls_src_i.dst), .tp_fp32(ls_src_i.fp32),
        .can_ls, .can_mm, .can_tp, .tp_mm_now, .idle(pe_idle),
        .raddr_a, .rdata_a, .rpart_r(pe_rpart_r), .raddr_r(pe_raddr_r), .rdata_r,
        .mv_data, .mv_swap, .mv_ctl, .wl_valid, .wl_beat, .wl_data,
        .ctl_last(ctl_col[COLS-1]),
        .ret_ls_valid, .ret_ls_id, .ret_ls_start, .ret_ls_end,
        .ret_mm_valid, .ret_mm_id, .ret_mm_start, .ret_mm_end
    );

    systolic_array #(.ROWS(ROWS), .COLS(COLS), .MAX_S(MAX_S), .BW(BW), .CTLW(CTLW)) u_array (
        .clk, .cfg_ls_shift, .mv_data, .mv_swap, .mv_ctl, .wl_valid, .wl_beat, .wl_data,
        .psum_out, .ctl_col
    );

    // PSUM: column c writes partition c when its control word is valid and c < M
    logic [COLS-1:0] ps_we, ps_acc;
    logic [COLS-1:0][15:0] ps_addr;
    always_comb
        for (int c = 0; c < COLS; c++) begin
            ps_we[c] = ctl_col[c][CTLW-1] && 16'(c) < ctl_col[c][63:48];
            ps_acc[c] = ctl_col[c][CTLW-3];
            ps_addr[c] = ctl_col[c][79:64];
        end

    psum #(.PARTS(COLS), .BANKS(PSUM_BANKS), .BANK_BYTES(PSUM_BANK_BYTES)) u_psum (
        .clk, .we(ps_we), .acc(ps_acc), .addr(ps_addr), .data(psum_out)
    );

    transpose32 #(.PARTS(SBUF_PARTS), .PORT(PORT)) u_dve (
        .clk, .rst, .cycle, .cfg_min_ii(cfg_dve_min_ii), .issue(dve_go),
        .in_id(e0.id), .in_p(e0.k), .in_f(e0.m), .in_src_part(e0.p0), .in_src_addr(e0.src),
        .in_dst_part(e0.p1), .in_dst_addr(e0.dst), .busy(dve_busy),
        .rpart(dve_rpart), .raddr(dve_raddr), .rdata(rdata_c), .we(dve_we), .wpart(dve_wpart), .waddr(dve_waddr),
        .wdata(dve_wdata), .wmask(dve_wmask),
        .ret_valid(ret_dve_valid), .ret_id(ret_dve_id), .ret_start(ret_dve_start),
        .ret_end(ret_dve_end)
    );

    dma #(.PARTS(SBUF_PARTS), .PORT(PORT), .HBM_BYTES(HBM_BYTES)) u_dma (
        .clk, .rst, .cycle, .cfg_lat(cfg_dma_lat), .cfg_rate(cfg_dma_rate),
        .cfg_dmin(cfg_dma_dmin), .issue(dma_go), .can_issue(dma_can),
        .in_id(e0.id), .in_dir(e0.dir), .in_parts(e0.k), .in_chunks(e0.m),
        .in_chunk_bytes(e0.t), .in_hbm(e0.src), .in_hbm_pstride(e0.s1),
        .in_hbm_cstride(e0.s2), .in_sbuf_part(e0.p0), .in_sbuf_addr(e0.dst), .busy(dma_busy),
        .rpart(dma_rpart), .raddr(dma_raddr), .rdata(rdata_r[0]), .we(dma_we), .wpart(dma_wpart), .waddr(dma_waddr),
        .wdata(dma_wdata), .wmask(dma_wmask),
        .ret_valid(ret_dma_valid), .ret_id(ret_dma_id), .ret_start(ret_dma_start),
        .ret_end(ret_dma_end)
    );

    // SBUF ports: units never overlap, so the active one drives the row and write ports
    always_comb begin
        if (dve_busy || dve_go) begin
            raddr_r = pe_raddr_r; rpart_r = pe_rpart_r;
            we = dve_we; wpart = dve_wpart; waddr = dve_waddr; wdata = dve_wdata; wmask = dve_wmask;
        end else if (dma_busy) begin
            raddr_r = dma_raddr; rpart_r = dma_rpart;
            we = dma_we; wpart = dma_wpart; waddr = dma_waddr; wdata = dma_wdata; wmask = dma_wmask;
        end else begin
            raddr_r = pe_raddr_r; rpart_r = pe_rpart_r;
            we = 1'b0; wpart = 16'd0; waddr = 32'd0; wdata = '0; wmask = '0;
        end
    end

    sbuf #(.PARTS(SBUF_PARTS), .BYTES(SBUF_BYTES), .PORT(PORT), .NR(MAX_S)) u_sbuf (
        .clk, .raddr_a, .rdata_a, .rpart_r, .raddr_r, .rdata_r, .rpart_c(dve_rpart),
        .raddr_c(dve_raddr), .rdata_c, .we, .wpart, .waddr, .wdata, .wmask
    );
endmodule
