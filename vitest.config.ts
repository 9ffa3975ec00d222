import { defineConfig } from "vitest/config";

// Two projects: `unit` (pure logic, no processes) and `integration` (one real local control plane
// per run, started by the global setup; tests isolate themselves by namespace). With CI set, a
// skipped test fails the run, named (test/reporters/no-skips.ts).
export default defineConfig({
  test: {
    reporters: ["default", "./test/reporters/no-skips.ts"],
    projects: [
      {
        test: {
          name: "unit",
          include: [
            "src/**/*.test.ts",
            "test/unit/**/*.test.ts",
            "test/e2e/support/**/*.test.ts",
            "test/lint/**/*.test.ts",
            "test/reporters/**/*.test.ts",
          ],
          // ffmpeg and ffprobe for the HLS tests, installed on first use (src/dev/media-tools.ts).
          globalSetup: ["test/unit/global-setup.ts"],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: "integration",
          include: ["test/integration/**/*.test.ts"],
          globalSetup: ["test/integration/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 2_400_000,
          // Two cores: integration files share one control plane; run a few at once.
          maxWorkers: 2,
        },
      },
      {
        // The e2e suite (test/e2e) on this machine's Go-built control plane with a real node and
        // the chart installed by its harness; `npm run test:kind` runs the same files on kind.
        test: {
          name: "e2e-real-node",
          include: ["test/e2e/**/*.e2e.test.ts"],
          globalSetup: ["test/e2e/harness/real-node.ts"],
          testTimeout: 300_000,
          hookTimeout: 2_400_000,
        },
      },
    ],
  },
});
