// systolic_array: ROWS x COLS weight-stationary array of PEs (pe.sv: pe_pkg).
//
// Inputs arrive unskewed at the array edge; the array applies the usual skew itself:
//  - moving beat b enters row r at cycle b + r (a triangle of delay registers) and moves
//    one column to the right per cycle, so PE(r, c) multiplies it at b + r + c;
//  - partial sums move one row down per cycle; the bottom row's sum (combinational) is
//    the value written into PSUM in the same cycle, so column c's result for beat b is
//    written at b + (ROWS-1) + c;
//  - load-stationary beat k (S weight rows, one lane each) enters column c at k + c (a
//    triangle of delay registers on the top edge) and moves one row down per cycle; PE(r, c)
//    captures lane r mod S of beat r / S into its shadow register at k + r + c;
//  - the swap marker travels with the moving data: on it a PE multiplies with its shadow
//    weight and makes it active, exactly when the new matmul's wavefront arrives;
//  - a control word (PSUM address, flags, instruction id) rides along: delayed ROWS-1
//    cycles, then one column per cycle, so ctl_col[c] is aligned with psum_out[c].
// The grid is kept in unpacked arrays updated by loops (next state computed combinationally,
// then registered): the same registers as ROWS x COLS `pe` instances, but the Verilator model
// keeps the loops rolled, so building a 128 x 128 model stays quick.
module systolic_array #(
    parameter int ROWS = 128,
    parameter int COLS = 128,
    parameter int MAX_S = 4,
    parameter int BW = 8,
    parameter int CTLW = 8
) (
    input  logic                         clk,
    input  logic [1:0]                   cfg_ls_shift,    // log2(ls_speedup)
    input  logic [ROWS-1:0][15:0]        mv_data,
    input  logic                         mv_swap,
    input  logic [CTLW-1:0]              mv_ctl,
    input  logic                         wl_valid,
    input  logic [BW-1:0]                wl_beat,
    input  logic [MAX_S-1:0][COLS-1:0][15:0] wl_data,
    output logic [COLS-1:0][31:0]        psum_out,
    output logic [COLS-1:0][CTLW-1:0]    ctl_col
);
    // PE registers, one unpacked array per field: Verilator makes them plain C++ arrays, so
    // an element access is one load or store. (Packed vectors of ROWS x COLS fields become
    // one wide word each, whose variable-index slices cost shifts and masks: 128 x 128 ran
    // at about 260 cycles/s that way.)
    logic [15:0]            a_r [ROWS][COLS], a_n [ROWS][COLS];
    logic [15:0]            wa_r [ROWS][COLS], wa_n [ROWS][COLS];
    logic [15:0]            ws_r [ROWS][COLS], ws_n [ROWS][COLS];
    logic                   s_r [ROWS][COLS], s_n [ROWS][COLS];
    logic                   wv_r [ROWS][COLS], wv_n [ROWS][COLS];
    logic [31:0]            p_r [ROWS][COLS], p_n [ROWS][COLS];
    logic [BW-1:0]          wb_r [ROWS][COLS], wb_n [ROWS][COLS];
    logic [MAX_S-1:0][15:0] wd_r [ROWS][COLS], wd_n [ROWS][COLS];
    // edge skew triangles (row r uses dq[r][0..r-1]; column c uses the top queues [c][0..c-1])
    logic [15:0]            dq_r [ROWS][ROWS], dq_n [ROWS][ROWS];
    logic                   sq_r [ROWS][ROWS], sq_n [ROWS][ROWS];
    logic                   tv_r [COLS][COLS], tv_n [COLS][COLS];
    logic [BW-1:0]          tb_r [COLS][COLS], tb_n [COLS][COLS];
    logic [MAX_S-1:0][15:0] td_r [COLS][COLS], td_n [COLS][COLS];
    // control word chain
    logic [CTLW-1:0]        cd_r [ROWS], cd_n [ROWS];
    logic [CTLW-1:0]        cc_r [COLS], cc_n [COLS];

    initial begin
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) begin
                wa_r[r][c] = '0;
                ws_r[r][c] = '0;
            end
    end

    always_comb begin
        // left edge
        for (int r = 0; r < ROWS; r++) begin
            dq_n[r][0] = mv_data[r];
            sq_n[r][0] = mv_swap;
            for (int k = 1; k < ROWS; k++) begin
                dq_n[r][k] = dq_r[r][k-1];
                sq_n[r][k] = sq_r[r][k-1];
            end
        end
        // top edge
        for (int c = 0; c < COLS; c++) begin
            tv_n[c][0] = wl_valid;
            tb_n[c][0] = wl_beat;
            for (int l = 0; l < MAX_S; l++)
                td_n[c][0][l] = wl_data[l][c];
            for (int k = 1; k < COLS; k++) begin
                tv_n[c][k] = tv_r[c][k-1];
                tb_n[c][k] = tb_r[c][k-1];
                td_n[c][k] = td_r[c][k-1];
            end
        end
        // the grid
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) begin
                logic signed [15:0] a_in, w_use;
                logic               s_in, v_in;
                logic signed [31:0] p_in;
                logic [BW-1:0]      b_in;
                logic [MAX_S-1:0][15:0] d_in;
                logic [BW-1:0]      my_beat;
                int                 my_lane;
                if (c == 0) begin
                    a_in = r == 0 ? mv_data[0] : dq_r[r][r-1];
                    s_in = r == 0 ? mv_swap : sq_r[r][r-1];
                end else begin
                    a_in = a_r[r][c-1];
                    s_in = s_r[r][c-1];
                end
                p_in = r == 0 ? 32'sd0 : p_r[r-1][c];
                if (r == 0) begin
                    v_in = c == 0 ? wl_valid : tv_r[c][c-1];
                    b_in = c == 0 ? wl_beat : tb_r[c][c-1];
                    for (int l = 0; l < MAX_S; l++)
                        d_in[l] = c == 0 ? wl_data[l][0] : td_r[c][c-1][l];
                end else begin
                    v_in = wv_r[r-1][c];
                    b_in = wb_r[r-1][c];
                    d_in = wd_r[r-1][c];
                end
                w_use = pe_pkg::weight(s_in, wa_r[r][c], ws_r[r][c]);
                a_n[r][c] = a_in;
                s_n[r][c] = s_in;
                p_n[r][c] = pe_pkg::mac(p_in, a_in, w_use);
                wv_n[r][c] = v_in;
                wb_n[r][c] = b_in;
                wd_n[r][c] = d_in;
                wa_n[r][c] = s_in ? ws_r[r][c] : wa_r[r][c];
                my_beat = BW'(r >> cfg_ls_shift);
                my_lane = r & ((1 << cfg_ls_shift) - 1);
                ws_n[r][c] = (v_in && b_in == my_beat) ? d_in[my_lane] : ws_r[r][c];
            end
        for (int c = 0; c < COLS; c++)
            psum_out[c] = p_n[ROWS-1][c];
        // control words
        cd_n[0] = mv_ctl;
        for (int k = 1; k < ROWS; k++)
            cd_n[k] = cd_r[k-1];
        cc_n[0] = ROWS == 1 ? mv_ctl : cd_r[ROWS-2];
        for (int c = 1; c < COLS; c++)
            cc_n[c] = cc_r[c-1];
        for (int c = 0; c < COLS; c++)
            ctl_col[c] = c == 0 ? cc_n[0] : cc_r[c-1];
    end

    always_ff @(posedge clk) begin
        a_r <= a_n; s_r <= s_n; p_r <= p_n; wa_r <= wa_n; ws_r <= ws_n;
        wv_r <= wv_n; wb_r <= wb_n; wd_r <= wd_n;
        dq_r <= dq_n; sq_r <= sq_n; tv_r <= tv_n; tb_r <= tb_n; td_r <= td_n;
        cd_r <= cd_n; cc_r <= cc_n;
    end
endmodule
