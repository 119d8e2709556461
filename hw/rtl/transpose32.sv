// transpose32: the DVE's 32x32 block transposer (one reshape bank: 32 partitions).
//
// Source [P partitions x F elements] at (src_part, src_addr); each cycle j (0..F-1) it reads
// column j of the P source partitions (one element each, SBUF port B) and writes it as the
// row of destination partition dst_part + j (P elements in one wide write). A transpose
// therefore streams F cycles; the engine stays busy max(F, min_ii) DVE cycles (the DVE
// minimum initiation interval) and retires at start + max(F, min_ii), the simulator's
// max(MIN_II, N) with N = F.
module transpose32 #(
    parameter int PARTS = 128,
    parameter int PORT = 128
) (
    input  logic                          clk,
    input  logic                          rst,
    input  logic [31:0]                   cycle,
    input  logic [15:0]                   cfg_min_ii,
    input  logic                          issue,
    input  logic [15:0]                   in_id,
    input  logic [15:0]                   in_p,        // partitions P (<= 32)
    input  logic [15:0]                   in_f,        // free size F (<= 32)
    input  logic [15:0]                   in_src_part,
    input  logic [31:0]                   in_src_addr,
    input  logic [15:0]                   in_dst_part,
    input  logic [31:0]                   in_dst_addr,
    output logic                          busy,
    // SBUF port B (read) and the write port
    output logic [15:0]                   rpart,
    output logic [31:0]                   raddr,
    input  logic [15:0]                   rdata [32],
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
    logic        active;
    logic [15:0] id, p, f, sp, dp, cnt;
    logic [31:0] sa, da, start, total;
    // the beat being executed this cycle (the issue cycle executes beat 0)
    logic [15:0] c_id, c_p, c_f, c_sp, c_dp, c_cnt;
    logic [31:0] c_sa, c_da, c_start, c_total;
    logic        c_on;

    always_comb begin
        c_on = issue || active;
        if (issue) begin
            c_id = in_id; c_p = in_p; c_f = in_f; c_sp = in_src_part; c_dp = in_dst_part;
            c_sa = in_src_addr; c_da = in_dst_addr; c_start = cycle; c_cnt = 16'd0;
            c_total = {16'd0, in_f > cfg_min_ii ? in_f : cfg_min_ii};
            if (c_total == 32'd0)
                c_total = 32'd1;
        end else begin
            c_id = id; c_p = p; c_f = f; c_sp = sp; c_dp = dp; c_sa = sa; c_da = da;
            c_start = start; c_cnt = cnt; c_total = total;
        end
        raddr = c_sa + {16'd0, c_cnt};
        rpart = c_sp;
        we = c_on && c_cnt < c_f;
        wpart = c_dp + c_cnt;
        waddr = c_da;
    end

    always_comb begin
        wdata = '0;
        wmask = '0;
        for (int i = 0; i < 32 && i < PORT; i++)
            if (16'(i) < c_p) begin
                wdata[i*16 +: 16] = rdata[i];
                wmask[i] = 1'b1;
            end
    end

    assign busy = active;

    always_ff @(posedge clk) begin
        ret_valid <= 1'b0;
        if (rst) begin
            active <= 1'b0;
        end else if (c_on) begin
            id <= c_id; p <= c_p; f <= c_f; sp <= c_sp; dp <= c_dp; sa <= c_sa; da <= c_da;
            start <= c_start; total <= c_total;
            cnt <= c_cnt + 16'd1;
            active <= {16'd0, c_cnt} + 32'd1 < c_total;
            if ({16'd0, c_cnt} + 32'd1 == c_total) begin
                ret_valid <= 1'b1;
                ret_id <= c_id;
                ret_start <= c_start;
                ret_end <= cycle + 32'd1;
            end
        end
    end
endmodule
