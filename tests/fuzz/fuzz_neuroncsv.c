// libFuzzer target for the Neuron Explorer Instruction-table CSV import (traces/import_csv.c,
// lenient mode). Not built by default: tests/fuzz/run.sh builds and runs it.
/* CSV in; accepted traces go out as laysim's CSV and back in through the strict reader:
 * the same records. */
#include <stdint.h>

#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_import_roundtrip(data, size, ".csv", TRACE_FMT_NEURON_CSV, TRACE_FMT_LAYSIM_CSV,
                          trace_export_csv, ".csv");
    return 0;
}
