// libFuzzer target for the Chrome trace-event JSON import (traces/import_json.c). Not built
// by default: tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* JSON in; accepted traces go out through laysim's Perfetto export and back in: the
 * same records (the export keeps exact ticks, clocks and track names). */
#include <stdint.h>

#include "fuzz_import_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_import_roundtrip(data, size, ".json", TRACE_FMT_CHROME_JSON, TRACE_FMT_CHROME_JSON,
                          trace_export_perfetto, ".json");
    return 0;
}
