// The e2e suite: what a user of the chart cares about, in order, against whatever cluster the
// context names (see support/context.ts): the real-node harness (vitest project e2e-real-node)
// and the kind runner (`npm run test:kind`) run this same file.
import { ctx } from "./support/cluster.ts";
import "./scenarios/install.ts";
import "./scenarios/orchestrator.ts";
import "./scenarios/gateway.ts";
import "./scenarios/webhook.ts";
import "./scenarios/rbac.ts";
import "./scenarios/upgrade-uninstall.ts";

// Last, once the suite's release is gone: the upgrade from the previous release with live
// traffic (it needs the cluster to itself, see its header). Only where the harness built and
// imported the previous release (ctx.previous); elsewhere it is not collected at all.
if (ctx.previous) await import("./scenarios/upgrade-from-release.ts");
