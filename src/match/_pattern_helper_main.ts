// The helper process's entry when linewise runs from source (the binary runs itself with
// PATTERN_HELPER_ENV set instead): see pattern_helper.ts.
import { runPatternHelper } from "./pattern_helper.ts";

await runPatternHelper();
