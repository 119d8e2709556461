// pe: one weight-stationary processing element.
//
// Arithmetic: signed int16 x int16 products accumulated into int32 partial sums (wrapping).
// The simulator models bf16/fp32; the RTL exists for timing, and integer arithmetic keeps
// the numeric check exact (docs/rtl.md).
//
// Weights are double-buffered: `w_sh` (shadow) is written by the load-stationary beat
// stream travelling down the column, `w_act` (active) is what multiplies. The moving
// operand carries a `swap` bit with the first beat of every multiply window that uses new
// weights: on that beat the PE multiplies with the shadow value and copies it to active.
// Because the swap travels with the data, each PE switches exactly when the new matmul's
// wavefront reaches it, so a background load never disturbs the previous matmul.
// pe_pkg: the PE's behaviour as functions, shared by the `pe` module below and by
// systolic_array, which applies them in loops over its PE grid (one rolled loop for
// the simulator instead of ROWS x COLS inlined copies; same hardware).
package pe_pkg;
    // the weight a beat multiplies with: the shadow on the swap beat, else the active one
    function automatic logic signed [15:0] weight(input logic swap, input logic signed [15:0] w_act,
                                                  input logic signed [15:0] w_sh);
        return swap ? w_sh : w_act;
    endfunction
    // multiply-accumulate: int16 x int16 into the int32 partial sum (wrapping)
    function automatic logic signed [31:0] mac(input logic signed [31:0] p,
                                               input logic signed [15:0] a,
                                               input logic signed [15:0] w);
        return p + 32'(a) * 32'(w);
    endfunction
endpackage

module pe #(
    parameter int MAX_S = 4,  // weight rows shifted in per cycle, upper bound
    parameter int BW = 8      // width of the load-stationary beat index
) (
    input  logic                  clk,
    // moving operand from the left (aligned: this PE's beat)
    input  logic signed [15:0]    a_in,
    input  logic                  swap_in,
    // partial sum from the PE above (registered there), 0 for the top row
    input  logic signed [31:0]    p_in,
    // load-stationary beat stream from above
    input  logic                  wl_valid_in,
    input  logic [BW-1:0]         wl_beat_in,
    input  logic [MAX_S*16-1:0]   wl_lanes_in,
    // which beat / lane carries this PE's weight (row >> log2(S), row & (S-1))
    input  logic [BW-1:0]         my_beat,
    input  logic [1:0]            my_lane,
    output logic signed [15:0]    a_out,
    output logic                  swap_out,
    output logic signed [31:0]    p_sum,   // combinational: p_in + w * a_in
    output logic signed [31:0]    p_out,   // p_sum registered, to the PE below
    output logic                  wl_valid_out,
    output logic [BW-1:0]         wl_beat_out,
    output logic [MAX_S*16-1:0]   wl_lanes_out
);
    logic signed [15:0] w_act, w_sh;
    logic signed [15:0] w_use;
    logic signed [15:0] lane;

    initial begin
        w_act = 16'sd0;
        w_sh = 16'sd0;
    end

    assign w_use = pe_pkg::weight(swap_in, w_act, w_sh);
    assign p_sum = pe_pkg::mac(p_in, a_in, w_use);
    assign lane = wl_lanes_in[my_lane * 16 +: 16];

    always_ff @(posedge clk) begin
        a_out <= a_in;
        swap_out <= swap_in;
        p_out <= p_sum;
        wl_valid_out <= wl_valid_in;
        wl_beat_out <= wl_beat_in;
        wl_lanes_out <= wl_lanes_in;
        if (swap_in)
            w_act <= w_sh;
        if (wl_valid_in && wl_beat_in == my_beat)
            w_sh <= lane;
    end
endmodule
