// psum: banked accumulators. PARTS partitions (one per array column), each BANKS banks of
// BANK_BYTES bytes of 32-bit entries; an address is bank * (BANK_BYTES/4) + entry. Every
// partition has its own write port (the array's columns write in skewed cycles); a write
// either overwrites or accumulates (read-modify-write in one cycle).
module psum #(
    parameter int PARTS = 128,
    parameter int BANKS = 8,
    parameter int BANK_BYTES = 2048
) (
    input  logic                    clk,
    input  logic [PARTS-1:0]        we,
    input  logic [PARTS-1:0]        acc,
    input  logic [PARTS-1:0][15:0]  addr,
    input  logic [PARTS-1:0][31:0]  data
);
    localparam int ENTRIES = BANKS * BANK_BYTES / 4;
    localparam int AW = $clog2(ENTRIES);

    logic [31:0] mem [PARTS][ENTRIES] /*verilator public_flat_rw*/;

    always_ff @(posedge clk) begin
        for (int p = 0; p < PARTS; p++)
            if (we[p])
                mem[p][addr[p][AW-1:0]] = (acc[p] ? mem[p][addr[p][AW-1:0]] : 32'd0) + data[p];
    end
endmodule
