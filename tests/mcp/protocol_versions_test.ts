import { test } from "node:test";
import assert from "node:assert/strict";
import {
  LATEST_PROTOCOL_VERSION,
  negotiateProtocolVersion,
  protocolFeatures,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "../../src/mcp/protocol_versions.ts";

test("negotiateProtocolVersion() answers every supported version with itself", () => {
  for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
    assert.equal(negotiateProtocolVersion(version), version);
  }
});

test("negotiateProtocolVersion() answers anything else with the newest version", () => {
  for (const requested of ["2024-10-07", "2099-01-01", "", 20250618, undefined, null]) {
    assert.equal(negotiateProtocolVersion(requested), "2025-11-25", String(requested));
  }
});

test("SUPPORTED_PROTOCOL_VERSIONS lists the newest first", () => {
  assert.equal(SUPPORTED_PROTOCOL_VERSIONS[0], LATEST_PROTOCOL_VERSION);
  assert.deepEqual([...SUPPORTED_PROTOCOL_VERSIONS].sort().reverse(), SUPPORTED_PROTOCOL_VERSIONS);
});

test("protocolFeatures() allows batches only in 2025-03-26", () => {
  assert.deepEqual(SUPPORTED_PROTOCOL_VERSIONS.filter((v) => protocolFeatures(v).batches), [
    "2025-03-26",
  ]);
});

test("protocolFeatures() sends structured content from 2025-06-18 on", () => {
  assert.deepEqual(
    SUPPORTED_PROTOCOL_VERSIONS.filter((v) => protocolFeatures(v).structuredContent),
    ["2025-11-25", "2025-06-18"],
  );
});

test("protocolFeatures() sends annotations and progress messages from 2025-03-26 on", () => {
  assert.equal(protocolFeatures("2024-11-05").annotations, false);
  assert.equal(protocolFeatures("2024-11-05").progressMessage, false);
  assert.equal(protocolFeatures("2025-03-26").annotations, true);
  assert.equal(protocolFeatures("2025-03-26").progressMessage, true);
  assert.equal(protocolFeatures("2025-03-26").title, false);
  assert.equal(protocolFeatures("2025-06-18").title, true);
});
