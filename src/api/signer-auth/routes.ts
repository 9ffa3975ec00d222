// POST /node-hooks/v1/remote-signers/{namespace}/{name}/auth?token=: a RemoteSigner node's auth
// webhook (-remoteSignerWebhookUrl; go-livepeer authLivePayment). The token is checked against
// the RemoteSigner's status.hookTokenDigest as the gateway hooks are; a wrong token and an unknown
// signer get the same 404. A call the hook answers gets HTTP 200 whatever the decision: the
// signer treats any other HTTP status as its webhook failing (its caller gets a 500), and reads
// the decision from the body's {status, reason, expiry, auth_id, maxPrice}.

import { performance } from "node:perf_hooks";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { NODE_HOOKS_PREFIX } from "../../schema/node-hooks.ts";
import type { TokenVerifier } from "../auth/verifier.ts";
import { HttpError, notFound, serviceUnavailable } from "../errors/http-error.ts";
import { parseOr422 } from "../errors/validation.ts";
import { answerJson } from "./answer-json.ts";
import { type Caller, decide } from "./decision.ts";
import { HookTokenCheck } from "./hook-token.ts";
import type { SignerAuthMetrics } from "./metrics.ts";
import {
  headerValue,
  parseSignerAuthBodyFast,
  type SignerAuthBody,
  SignerAuthBodySchema,
} from "./payment-state.ts";
import type { CachedSigner, SignerSource } from "./signer-cache.ts";
import type { SpendLedger } from "./spend-ledger.ts";
import type { SignerPolicy } from "./tenant-policy.ts";

export interface SignerAuthRoutesOptions {
  signers: SignerSource;
  verifier: Pick<TokenVerifier, "verifyHeader" | "knownHeader">;
  ledger: SpendLedger;
  metrics?: SignerAuthMetrics | undefined;
  now?: () => number;
}

type AuthRequest = {
  Params: { namespace: string; name: string };
  Querystring: { token?: string };
  Body: unknown;
};

export const SIGNER_AUTH_ROUTE = `${NODE_HOOKS_PREFIX}/remote-signers/:namespace/:name/auth`;

async function callerOf(
  verifier: SignerAuthRoutesOptions["verifier"],
  header: string | undefined,
): Promise<Caller> {
  if (!header) return { kind: "anonymous" };
  try {
    const p = await verifier.verifyHeader(header);
    return { kind: "token", sub: p.userId, scopes: p.scopes };
  } catch (err) {
    if (err instanceof HttpError && err.status === 401)
      return { kind: "refused", message: err.messages.join("; ") };
    throw err;
  }
}

// "namespace/name", the ledger's name for a signer: one string per cached policy, not one per call.
const signerKeys = new WeakMap<SignerPolicy, string>();
function signerKey(p: SignerPolicy): string {
  let key = signerKeys.get(p);
  if (key === undefined) {
    key = `${p.namespace}/${p.name}`;
    signerKeys.set(p, key);
  }
  return key;
}

export async function signerAuthRoutes(app: FastifyInstance, opts: SignerAuthRoutesOptions): Promise<void> {
  const now = opts.now ?? Date.now;
  const tokens = new HookTokenCheck<CachedSigner>();
  // Not an async function: a payment whose tenant token was verified moments ago (a session pays
  // every few seconds) is decided and answered in this call, without a promise and a microtask;
  // only a token to verify goes through a promise. A throw here reaches fastify's error handler
  // as a rejection would.
  app.post<AuthRequest>(SIGNER_AUTH_ROUTE, (req, reply) => {
    const started = performance.now();
    if (!opts.signers.synced()) {
      throw serviceUnavailable(
        "the API is starting: its RemoteSigner cache has not synced with the cluster yet",
        2,
      );
    }
    const { namespace, name } = req.params;
    const signer = opts.signers.get(namespace, name);
    if (!signer || !tokens.matches(signer, req.query.token)) {
      throw notFound(
        `no remote signer auth hook matches ${namespace}/${name} with this token: the RemoteSigner was deleted, or its token changed and the node still has the old URL (its pod restarts with the new one)`,
      );
    }
    const body =
      parseSignerAuthBodyFast(req.body) ?? parseOr422(SignerAuthBodySchema, req.body ?? {}, "body");
    const header = headerValue(body.headers, "Authorization");
    const known = opts.verifier.knownHeader(header);
    if (known) {
      answer(req, reply, signer, body, { kind: "token", sub: known.userId, scopes: known.scopes }, started);
      return;
    }
    return callerOf(opts.verifier, header).then((caller) => {
      answer(req, reply, signer, body, caller, started);
      return reply;
    });
  });

  function answer(
    req: FastifyRequest<AuthRequest>,
    reply: FastifyReply<AuthRequest>,
    signer: CachedSigner,
    body: SignerAuthBody,
    caller: Caller,
    started: number,
  ): void {
    const { namespace, name } = req.params;
    const at = now();
    const key = signerKey(signer.policy);
    const state = body.state ?? null;
    const decision = decide({
      signer: signer.policy,
      caller,
      state,
      ledger: (tenant) => opts.ledger.view(key, tenant, state?.StateID || undefined, at),
      now: at,
    });
    if (decision.spend && decision.tenant) opts.ledger.record(key, decision.tenant, decision.spend, at);
    // An allowed payment's tenant is one of the signer's (the decision found it there).
    const knownTenant =
      decision.outcome === "allowed" ||
      (decision.tenant && signer.policy.tenants.some((t) => t.name === decision.tenant))
        ? (decision.tenant ?? "")
        : "";
    opts.metrics?.observe(
      namespace,
      name,
      knownTenant,
      decision.outcome,
      (performance.now() - started) / 1000,
    );
    if (decision.outcome !== "allowed") {
      req.log.info(
        { signer: key, tenant: knownTenant, status: decision.answer.status, reason: decision.answer.reason },
        "remote signer payment refused",
      );
    }
    // The text as JSON.stringify writes it (answer-json.ts), sent as it is.
    reply.code(200).type("application/json; charset=utf-8").send(answerJson(decision.answer));
  }
}
