// The e2e suite: what a user of the chart cares about, in order, against whatever cluster the
// context names (see support/context.ts): the real-node harness (vitest project e2e-real-node)
// and the kind runner (`npm run test:kind`) run this same file.
import "./scenarios/install.ts";
import "./scenarios/orchestrator.ts";
import "./scenarios/gateway.ts";
import "./scenarios/webhook.ts";
import "./scenarios/rbac.ts";
import "./scenarios/upgrade-uninstall.ts";
