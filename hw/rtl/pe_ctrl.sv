// pe_ctrl: the tensor engine's sequencer. Runs load-stationary (LS), multiply-moving (MM)
// and PE transposes (an LS of the data followed by an MM of a generated identity) on the
// systolic array, with the simulator's timing rules (docs/rtl.md, "Timing contract"):
//
// normal mode (cfg_bg = 1):
//  - an LS streams ceil(ROWS / S) beats (S = 1 << cfg_ls_shift weight rows per beat); it
//    may start when the previous LS has finished (the shadow buffer is free again once the
//    matmul that used it has issued, which in-order issue already guarantees);
//  - an MM issues when no LS is in flight and the previous MM's window has passed; its window
//    is II = max(T, min_ii) * passes cycles (passes = cfg_passes for fp32, else 1) with the
//    T moving beats right-aligned in it (datum j in the last pass of its group), so its last
//    PSUM write is at issue + II + ROWS + COLS - 3 and it retires one cycle later;
//  - a transpose starts like an LS; its MM phase issues when that LS is done and the
//    previous MM window has passed; the next instruction waits for that MM phase.
// textbook mode (cfg_bg = 0, with cfg_ls_shift = 0, cfg_min_ii = 0, cfg_passes = 1):
//    every instruction waits until the array is idle and drained.
// Start times are issue cycles; ends are measured: an LS retires after its last beat, an MM
// when its last result leaves the last column into PSUM.
module pe_ctrl #(
    parameter int ROWS = 128,
    parameter int COLS = 128,
    parameter int PARTS = 128,   // SBUF partitions
    parameter int PORT = 128,
    parameter int MAX_S = 4,
    parameter int BW = 8,
    parameter int CTLW = 83
) (
    input  logic                          clk,
    input  logic                          rst,
    input  logic [31:0]                   cycle,
    input  logic                          cfg_bg,
    input  logic [1:0]                    cfg_ls_shift,
    input  logic [15:0]                   cfg_min_ii,
    input  logic [7:0]                    cfg_passes,
    // commands from the front end
    input  logic                          ls_go,
    input  logic                          mm_go,
    input  logic                          tp_go,
    input  logic [15:0]                   ls_id, ls_k, ls_m,
    input  logic [31:0]                   ls_src,
    input  logic [15:0]                   mm_id, mm_k, mm_t,
    input  logic [31:0]                   mm_src, mm_dst,
    input  logic                          mm_acc, mm_fp32,
    input  logic [15:0]                   tp_id, tp_k, tp_f,
    input  logic [31:0]                   tp_src, tp_dst,
    input  logic                          tp_fp32,
    output logic                          can_ls, can_mm, can_tp,
    output logic                          tp_mm_now,
    output logic                          idle,
    // SBUF reads
    output logic [31:0]                   raddr_a,
    input  logic [15:0]                   rdata_a [PARTS],
    output logic [15:0]                   rpart_r,
    output logic [31:0]                   raddr_r,
    input  logic [PORT*16-1:0]            rdata_r [MAX_S],
    // array
    output logic [ROWS-1:0][15:0]         mv_data,
    output logic                          mv_swap,
    output logic [CTLW-1:0]               mv_ctl,
    output logic                          wl_valid,
    output logic [BW-1:0]                 wl_beat,
    output logic [MAX_S-1:0][COLS-1:0][15:0] wl_data,
    input  logic [CTLW-1:0]               ctl_last,   // control word leaving the last column
    // retire
    output logic                          ret_ls_valid,
    output logic [15:0]                   ret_ls_id,
    output logic [31:0]                   ret_ls_start, ret_ls_end,
    output logic                          ret_mm_valid,
    output logic [15:0]                   ret_mm_id,
    output logic [31:0]                   ret_mm_start, ret_mm_end
);
    // ---------------- state ----------------
    logic        ls_active, ls_is_tp;
    logic [BW-1:0] ls_beat, ls_n;
    logic [15:0] ls_k_r, ls_m_r, ls_id_r;
    logic [31:0] ls_src_r, ls_start_r;
    logic [15:0] stat_m;         // columns of the most recent LS (what an MM writes)
    logic        shadow_new;     // the shadow holds weights no MM has swapped in yet

    logic        mm_active, mm_ident, mm_acc_r, mm_swap_r;
    logic [15:0] mm_id_r, mm_k_r, mm_t_r, mm_m_r, mm_j, mm_q;
    logic [31:0] mm_src_r, mm_dst_r, mm_start_r, mm_w, mm_ii, mm_off;
    logic [7:0]  mm_p;

    logic        pend_tp, tp_fp32_r;
    logic [15:0] tp_id_r, tp_k_r, tp_f_r;
    logic [31:0] tp_dst_r, tp_start_r;
    logic [15:0] inflight;

    // ---------------- readiness ----------------
    assign idle = !ls_active && !mm_active && inflight == 16'd0 && !pend_tp;
    assign tp_mm_now = pend_tp && !ls_active && !mm_active && (cfg_bg || inflight == 16'd0);
    always_comb begin
        if (cfg_bg) begin
            can_ls = !ls_active && (!pend_tp || tp_mm_now);
            can_mm = !ls_active && !mm_active && !pend_tp;
        end else begin
            can_ls = idle;
            can_mm = idle;
        end
        can_tp = can_ls;  // normal mode: may start as the pending transpose's MM phase issues
    end

    // ---------------- LS beat of this cycle ----------------
    logic          c_ls_on, c_ls_tp;
    logic [BW-1:0] c_beat, c_n;
    logic [15:0]   c_lk, c_lm, c_lid;
    logic [31:0]   c_lsrc, c_lstart;
    logic [BW-1:0] nbeats;
    assign nbeats = BW'((ROWS + (1 << cfg_ls_shift) - 1) >> cfg_ls_shift);

    always_comb begin
        c_ls_on = ls_go || tp_go || ls_active;
        c_ls_tp = tp_go ? 1'b1 : ls_go ? 1'b0 : ls_is_tp;
        if (tp_go) begin
            c_beat = '0; c_n = nbeats; c_lk = tp_k; c_lm = tp_f; c_lid = tp_id;
            c_lsrc = tp_src; c_lstart = cycle;
        end else if (ls_go) begin
            c_beat = '0; c_n = nbeats; c_lk = ls_k; c_lm = ls_m; c_lid = ls_id;
            c_lsrc = ls_src; c_lstart = cycle;
        end else begin
            c_beat = ls_beat; c_n = ls_n; c_lk = ls_k_r; c_lm = ls_m_r; c_lid = ls_id_r;
            c_lsrc = ls_src_r; c_lstart = ls_start_r;
        end
        raddr_r = c_lsrc;
        rpart_r = 16'(int'(c_beat) << cfg_ls_shift);
        wl_valid = c_ls_on;
        wl_beat = c_beat;
    end

    // weight lanes of this beat (a separate block: data depends on the address above)
    always_comb begin
        for (int l = 0; l < MAX_S; l++) begin
            int row;
            row = (int'(c_beat) << cfg_ls_shift) + l;
            for (int c = 0; c < COLS; c++)
                wl_data[l][c] = (c_ls_on && l < (1 << cfg_ls_shift) && row < int'(c_lk)
                                 && c < int'(c_lm) && row < PARTS)
                                ? rdata_r[l][c*16 +: 16] : 16'd0;
        end
    end

    // ---------------- MM beat of this cycle ----------------
    logic        c_mm_issue, c_mm_on, c_ident, c_acc, c_swap, c_valid;
    logic [15:0] c_mid, c_mk, c_mt, c_mm, c_j, c_q;
    logic [31:0] c_msrc, c_mdst, c_mstart, c_w, c_ii, c_off;
    logic [7:0]  c_p;
    logic [15:0] iss_t;
    logic [7:0]  iss_p;

    always_comb begin
        c_mm_issue = mm_go || tp_mm_now;
        c_mm_on = c_mm_issue || mm_active;
        iss_t = tp_mm_now ? tp_k_r : mm_t;
        iss_p = (tp_mm_now ? tp_fp32_r : mm_fp32) ? cfg_passes : 8'd1;
        if (c_mm_issue) begin
            c_ident = tp_mm_now;
            c_acc = tp_mm_now ? 1'b0 : mm_acc;
            c_mid = tp_mm_now ? tp_id_r : mm_id;
            c_mk = tp_mm_now ? tp_k_r : mm_k;
            c_mt = iss_t;
            c_mm = tp_mm_now ? tp_f_r : stat_m;
            c_msrc = mm_src;
            c_mdst = tp_mm_now ? tp_dst_r : mm_dst;
            c_mstart = tp_mm_now ? tp_start_r : cycle;
            c_p = iss_p;
            c_ii = {16'd0, iss_t > cfg_min_ii ? iss_t : cfg_min_ii} * {24'd0, iss_p};
            c_off = c_ii - {16'd0, iss_t} * {24'd0, iss_p};
            c_swap = shadow_new;
            c_w = 32'd0; c_j = 16'd0; c_q = 16'd0;
        end else begin
            c_ident = mm_ident; c_acc = mm_acc_r; c_mid = mm_id_r; c_mk = mm_k_r; c_mt = mm_t_r;
            c_mm = mm_m_r; c_msrc = mm_src_r; c_mdst = mm_dst_r; c_mstart = mm_start_r;
            c_p = mm_p; c_ii = mm_ii; c_off = mm_off; c_swap = mm_swap_r;
            c_w = mm_w; c_j = mm_j; c_q = mm_q;
        end
        c_valid = c_mm_on && c_w >= c_off && c_q == {8'd0, c_p} - 16'd1;
        raddr_a = c_msrc + {16'd0, c_j};
        mv_swap = c_mm_on && c_w == 32'd0 && c_swap;
        // control word: {valid, last, acc, addr[15:0], m[15:0], id[15:0], start[31:0]}
        mv_ctl = {c_valid, c_j == c_mt - 16'd1, c_acc, 16'(c_mdst + {16'd0, c_j}), c_mm, c_mid,
                  c_mstart};
    end

    always_comb begin
        for (int r = 0; r < ROWS; r++)
            if (!c_valid || r >= int'(c_mk))
                mv_data[r] = 16'd0;
            else if (c_ident)
                mv_data[r] = (r == int'(c_j)) ? 16'd1 : 16'd0;
            else
                mv_data[r] = rdata_a[r];
    end

    // ---------------- state update ----------------
    logic ctl_v, ctl_l;
    assign ctl_v = ctl_last[CTLW-1];
    assign ctl_l = ctl_last[CTLW-2];

    always_ff @(posedge clk) begin
        ret_ls_valid <= 1'b0;
        ret_mm_valid <= 1'b0;
        if (rst) begin
            ls_active <= 1'b0;
            mm_active <= 1'b0;
            pend_tp <= 1'b0;
            shadow_new <= 1'b0;
            inflight <= 16'd0;
            stat_m <= 16'd0;
        end else begin
            // LS sequencer
            if (c_ls_on) begin
                ls_is_tp <= c_ls_tp; ls_n <= c_n; ls_k_r <= c_lk; ls_m_r <= c_lm;
                ls_id_r <= c_lid; ls_src_r <= c_lsrc; ls_start_r <= c_lstart;
                ls_beat <= c_beat + 1'b1;
                ls_active <= c_beat + 1'b1 != c_n;
                if (c_beat + 1'b1 == c_n && !c_ls_tp) begin
                    ret_ls_valid <= 1'b1;
                    ret_ls_id <= c_lid;
                    ret_ls_start <= c_lstart;
                    ret_ls_end <= cycle + 32'd1;
                end
            end
            if (ls_go)
                stat_m <= ls_m;
            // transposes
            if (tp_go) begin
                pend_tp <= 1'b1;
                tp_id_r <= tp_id; tp_k_r <= tp_k; tp_f_r <= tp_f; tp_dst_r <= tp_dst;
                tp_fp32_r <= tp_fp32; tp_start_r <= cycle;
            end else if (tp_mm_now) begin
                pend_tp <= 1'b0;
            end
            // the shadow buffer: an MM (phase) swaps it in, an LS (phase) refills it
            if (ls_go || tp_go)
                shadow_new <= 1'b1;
            else if (c_mm_issue)
                shadow_new <= 1'b0;
            // MM window
            if (c_mm_on) begin
                mm_ident <= c_ident; mm_acc_r <= c_acc; mm_id_r <= c_mid; mm_k_r <= c_mk;
                mm_t_r <= c_mt; mm_m_r <= c_mm; mm_src_r <= c_msrc; mm_dst_r <= c_mdst;
                mm_start_r <= c_mstart; mm_p <= c_p; mm_ii <= c_ii; mm_off <= c_off;
                mm_swap_r <= c_swap;
                mm_w <= c_w + 32'd1;
                if (c_w >= c_off) begin
                    if (c_q == {8'd0, c_p} - 16'd1) begin
                        mm_q <= 16'd0;
                        mm_j <= c_j + 16'd1;
                    end else begin
                        mm_q <= c_q + 16'd1;
                        mm_j <= c_j;
                    end
                end else begin
                    mm_q <= c_q;
                    mm_j <= c_j;
                end
                mm_active <= c_w + 32'd1 < c_ii;
            end
            // retire: the last result of an MM left the last column
            if (ctl_v && ctl_l) begin
                ret_mm_valid <= 1'b1;
                ret_mm_id <= ctl_last[47:32];
                ret_mm_start <= ctl_last[31:0];
                ret_mm_end <= cycle + 32'd1;
            end
            inflight <= inflight + 16'(c_mm_issue) - 16'(ctl_v && ctl_l);
        end
    end
endmodule
