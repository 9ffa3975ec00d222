import { defineConfig } from "vitest/config";

// The e2e suite against any cluster where the chart is installed, described by KUBECONFIG and
// LPO_E2E_* variables (test/e2e/support/context.ts): what `npm run test:kind` runs, and what a
// user runs against a cluster of their own.
export default defineConfig({
  test: {
    // With CI set, a skipped test fails the run, named.
    reporters: ["default", "./test/reporters/no-skips.ts"],
    include: ["test/e2e/**/*.e2e.test.ts"],
    testTimeout: 300_000,
    hookTimeout: 600_000,
  },
});
