// sbuf: the partitioned state buffer. PARTS partitions of BYTES bytes each, stored as 16-bit
// elements (addresses count elements). Ports, all sharing the memory array:
//  - A (moving stream): one element from every partition at raddr_a;
//  - R (rows): NR consecutive partitions from rpart_r, PORT consecutive elements each at
//    raddr_r (stationary loads read S weight rows per beat; DMA reads one partition);
//  - C (columns): 32 consecutive partitions from rpart_c, one element each at raddr_c (the
//    DVE transposer reads one column of a 32x32 block per cycle);
//  - W (write): PORT consecutive elements of one partition under a mask (DMA, DVE).
// A background load-stationary reads the same partitions as the matmul it hides behind, in
// the same cycle, so reads have their own ports (the NeuronCore SBUF is banked for this).
// Reads are combinational (the SRAM read stage is folded into the issue cycle); writes land
// at the clock edge. DEPTH must be a power of two; addresses wrap, partitions wrap.
module sbuf #(
    parameter int PARTS = 128,
    parameter int BYTES = 16384,
    parameter int PORT = 128,
    parameter int NR = 4
) (
    input  logic                clk,
    input  logic [31:0]         raddr_a,
    output logic [15:0]         rdata_a [PARTS],
    input  logic [15:0]         rpart_r,
    input  logic [31:0]         raddr_r,
    output logic [PORT*16-1:0]  rdata_r [NR],
    input  logic [15:0]         rpart_c,
    input  logic [31:0]         raddr_c,
    output logic [15:0]         rdata_c [32],
    input  logic                we,
    input  logic [15:0]         wpart,
    input  logic [31:0]         waddr,
    input  logic [PORT*16-1:0]  wdata,
    input  logic [PORT-1:0]     wmask
);
    localparam int DEPTH = BYTES / 2;
    localparam int AW = $clog2(DEPTH);
    localparam int PW = $clog2(PARTS) > 0 ? $clog2(PARTS) : 1;

    logic [15:0] mem [PARTS][DEPTH] /*verilator public_flat_rw*/;

    function automatic int part_of(input logic [15:0] base, input int i);
        return (int'(base) + i) % PARTS;
    endfunction

    always_comb
        for (int p = 0; p < PARTS; p++)
            rdata_a[p] = mem[p][raddr_a[AW-1:0]];

    always_comb
        for (int l = 0; l < NR; l++)
            for (int i = 0; i < PORT; i++)
                rdata_r[l][i*16 +: 16] = mem[part_of(rpart_r, l)][AW'(raddr_r[AW-1:0] + AW'(i))];

    always_comb
        for (int i = 0; i < 32; i++)
            rdata_c[i] = mem[part_of(rpart_c, i)][raddr_c[AW-1:0]];

    always_ff @(posedge clk)
        if (we && int'(wpart) < PARTS)
            for (int i = 0; i < PORT; i++)
                if (wmask[i])
                    mem[wpart[PW-1:0]][AW'(waddr[AW-1:0] + AW'(i))] = wdata[i*16 +: 16];
endmodule
