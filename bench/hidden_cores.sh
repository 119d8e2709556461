# The hidden cores of bench/calib_cores.sh and tests/cli/calib_hidden.sh (sourced by both):
# nc-v2 with other DMA, HBM, vector, pool or PE timings, as `--set` keys, which laysim's
# datasheet table does not know (docs/calibration.md, "Models the fit did not see").
# shellcheck disable=SC2034
declare -A CORE=(
    [slow]="dma.bytes_per_ns=11 dma.desc_min_ns=220 dma.transfer_latency_ns=1100 hbm.bytes_per_ns=300 vec.access_overhead=90 vec.static_overhead=160 pool.start_cycles=250"
    [fast]="dma.bytes_per_ns=24 dma.desc_min_ns=100 dma.transfer_latency_ns=450 hbm.bytes_per_ns=520 vec.access_overhead=40 vec.static_overhead=70 pool.start_cycles=100"
    [mixed]="dma.bytes_per_ns=20 dma.desc_min_ns=120 dma.transfer_latency_ns=900 hbm.bytes_per_ns=350 vec.access_overhead=30 vec.static_overhead=130 pool.start_cycles=200"
    [vecslow]="vec.access_overhead=140 vec.static_overhead=220 vec.min_ii=96 pool.start_cycles=300"
    [peslow]="pe.mm_min_ii=96 dma.bytes_per_ns=14 dma.transfer_latency_ns=1000 hbm.bytes_per_ns=380 vec.access_overhead=80"
)
