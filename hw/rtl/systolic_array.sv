// systolic_array: ROWS x COLS weight-stationary array of PEs (pe.sv: pe_pkg).
//
// Inputs arrive unskewed at the array edge; the array applies the usual skew itself:
//  - moving beat b enters row r at cycle b + r (a ring of ROWS delay slots per row: row r
//    reads the slot written r cycles earlier) and moves
//    one column to the right per cycle, so PE(r, c) multiplies it at b + r + c;
//  - partial sums move one row down per cycle; the bottom row's sum (combinational) is
//    the value written into PSUM in the same cycle, so column c's result for beat b is
//    written at b + (ROWS-1) + c;
//  - load-stationary beat k (S weight rows, one lane each) enters column c at k + c (a
//    ring of COLS delay slots on the top edge) and moves one row down per cycle; PE(r, c)
//    captures lane r mod S of beat r / S into its shadow register at k + r + c;
//  - the swap marker travels with the moving data: on it a PE multiplies with its shadow
//    weight and makes it active, exactly when the new matmul's wavefront arrives;
//  - a control word (PSUM address, flags, instruction id) rides along: delayed ROWS-1
//    cycles, then one column per cycle, so ctl_col[c] is aligned with psum_out[c].
// The grid is kept in unpacked arrays updated at the clock edge by loops that visit the PEs
// bottom-right first, so each PE still reads its upper and left neighbours' old values: the
// same registers as ROWS x COLS `pe` instances. Only the bottom row's sum (an output) is
// combinational. Verilator keeps the loops rolled, so a 128 x 128 model builds quickly, and
// the grid is computed once per cycle (a combinational next-state pass was evaluated on
// every input change, and its result copied into the registers).
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
    // an element access is one load or store (variable-index slices of packed ROWS x COLS
    // vectors cost wide-word shifts and masks: 128 x 128 ran at about 260 cycles/s so).
    logic [15:0]            a_r [ROWS][COLS];
    logic [15:0]            wa_r [ROWS][COLS];
    logic [15:0]            ws_r [ROWS][COLS];
    logic                   s_r [ROWS][COLS];
    logic                   wv_r [ROWS][COLS];
    logic [31:0]            p_r [ROWS][COLS];
    logic [BW-1:0]          wb_r [ROWS][COLS];
    logic [MAX_S-1:0][15:0] wd_r [ROWS][COLS];
    // edge skew rings [slot][lane]: lane k reads the slot written k cycles before this one
    // (k <= ROWS - 1 resp. COLS - 1, so a slot is read before it is rewritten)
    logic [15:0]            mq_data [ROWS][ROWS];
    logic                   mq_swap [ROWS][ROWS];
    logic                   tq_valid [COLS][COLS];
    logic [BW-1:0]          tq_beat [COLS][COLS];
    logic [MAX_S-1:0][15:0] tq_data [COLS][COLS];
    int                     mq_next, tq_next;   // the slot written at the next edge
    // control word chain
    logic [CTLW-1:0]        cd_r [ROWS];
    logic [CTLW-1:0]        cc_r [COLS];

    initial begin
        for (int r = 0; r < ROWS; r++)
            for (int c = 0; c < COLS; c++) begin
                wa_r[r][c] = '0;
                ws_r[r][c] = '0;
            end
        mq_next = 0;
        tq_next = 0;
    end

    // what enters PE(r, 0) from the left and PE(0, c) from the top in this cycle
    function automatic int mq_slot(input int r);
        return (mq_next - r + ROWS) % ROWS;
    endfunction
    function automatic int tq_slot(input int c);
        return (tq_next - c + COLS) % COLS;
    endfunction
    function automatic logic signed [15:0] left_data(input int r);
        return r == 0 ? mv_data[0] : mq_data[mq_slot(r)][r];
    endfunction
    function automatic logic left_swap(input int r);
        return r == 0 ? mv_swap : mq_swap[mq_slot(r)][r];
    endfunction

    // the moving operand and swap bit PE(r, c) sees in this cycle
    function automatic logic signed [15:0] a_at(input int r, input int c);
        return c == 0 ? left_data(r) : a_r[r][c == 0 ? 0 : c - 1];
    endfunction
    function automatic logic s_at(input int r, input int c);
        return c == 0 ? left_swap(r) : s_r[r][c == 0 ? 0 : c - 1];
    endfunction
    // PE(r, c)'s new partial sum in this cycle
    function automatic logic signed [31:0] sum_at(input int r, input int c);
        logic signed [31:0] p_in = r == 0 ? 32'sd0 : p_r[r == 0 ? 0 : r - 1][c];
        logic s_in = s_at(r, c);
        return pe_pkg::mac(p_in, a_at(r, c), pe_pkg::weight(s_in, wa_r[r][c], ws_r[r][c]));
    endfunction

    always_comb begin
        for (int c = 0; c < COLS; c++)
            psum_out[c] = sum_at(ROWS - 1, c);
        for (int c = 0; c < COLS; c++)
            ctl_col[c] = c > 0 ? cc_r[c == 0 ? 0 : c - 1] : ROWS == 1 ? mv_ctl : cd_r[ROWS < 2 ? 0 : ROWS - 2];
    end

    always_ff @(posedge clk) begin
        // the grid, bottom-right first: PE(r, c) reads (r - 1, c) and (r, c - 1) before they change
        for (int r = ROWS - 1; r >= 0; r--)
            for (int c = COLS - 1; c >= 0; c--) begin
                logic               s_in, v_in;
                logic [BW-1:0]      b_in;
                logic [MAX_S-1:0][15:0] d_in;
                int                 lane;
                s_in = s_at(r, c);
                if (r == 0) begin
                    v_in = c == 0 ? wl_valid : tq_valid[tq_slot(c)][c];
                    b_in = c == 0 ? wl_beat : tq_beat[tq_slot(c)][c];
                    for (int l = 0; l < MAX_S; l++)
                        d_in[l] = c == 0 ? wl_data[l][0] : tq_data[tq_slot(c)][c][l];
                end else begin
                    v_in = wv_r[r-1][c];
                    b_in = wb_r[r-1][c];
                    d_in = wd_r[r-1][c];
                end
                p_r[r][c] = sum_at(r, c);
                a_r[r][c] = a_at(r, c);
                s_r[r][c] = s_in;
                wv_r[r][c] = v_in;
                wb_r[r][c] = b_in;
                wd_r[r][c] = d_in;
                lane = r & ((1 << cfg_ls_shift) - 1);
                // the active weight takes the shadow's old value, so it is written first
                wa_r[r][c] = s_in ? ws_r[r][c] : wa_r[r][c];
                if (v_in && b_in == BW'(r >> cfg_ls_shift))
                    ws_r[r][c] = d_in[lane];
            end
        // edge rings: this cycle's inputs into the next slot
        for (int r = 0; r < ROWS; r++) begin
            mq_data[mq_next][r] = mv_data[r];
            mq_swap[mq_next][r] = mv_swap;
        end
        for (int c = 0; c < COLS; c++) begin
            tq_valid[tq_next][c] = wl_valid;
            tq_beat[tq_next][c] = wl_beat;
            for (int l = 0; l < MAX_S; l++)
                tq_data[tq_next][c][l] = wl_data[l][c];
        end
        mq_next = (mq_next + 1) % ROWS;
        tq_next = (tq_next + 1) % COLS;
        // control words: down the first column, then along the bottom row
        for (int c = COLS - 1; c > 0; c--)
            cc_r[c] = cc_r[c-1];
        cc_r[0] = ROWS == 1 ? mv_ctl : cd_r[ROWS < 2 ? 0 : ROWS - 2];
        for (int k = ROWS - 1; k > 0; k--)
            cd_r[k] = cd_r[k-1];
        cd_r[0] = mv_ctl;
    end
endmodule
