import { parseArgs } from "node:util";
import { SIGNING_SCOPE, signerSigningScope } from "../../api/auth/claims.ts";
import { loadSecret, SECRET_ENV } from "../../api/auth/key-sources.ts";
import { mintToken } from "../../api/auth/mint.ts";
import { parseDurationSeconds } from "../../api/options/parse.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator token --sub USER [options]

Mints an HS256 bearer token for the webhook API with the same secret the API server uses
(--jwt-secret-file or ${SECRET_ENV}) and prints only the token, for local use:
  curl -H "Authorization: Bearer $(livepeer-operator token --sub alice)" http://127.0.0.1:3000/api/webhook

A tenant's signing token (what a RemoteSigner's auth webhook checks: the gateway's
-remoteSignerHeaders or the SDK's signer_headers send it as Authorization: Bearer):
  livepeer-operator token --sub studio-a --signing --ttl 30d

Options:
  --sub USER              user id (the token's 'sub'; required)
  --project ID            project id (default: the user's default project)
  --scope "S1 S2"         space-separated scopes: admin, events:write, ${SIGNING_SCOPE}
  --signing               add the scope '${SIGNING_SCOPE}': remote signers that list the tenant --sub
                          pay for it
  --signer NS/NAME        add the scope '${SIGNING_SCOPE}:NS/NAME' instead: only that RemoteSigner pays
  --ttl DURATION          lifetime, e.g. 3600, 30m, 12h, 7d (default 1h)
  --jwt-secret-file FILE  the HS256 secret (default: $${SECRET_ENV})
  --jwt-issuer ISS        'iss' claim (when the server requires one)
  --jwt-audience AUD      'aud' claim (when the server requires one)`;

export const command: Command = {
  name: "token",
  summary: "Mint a bearer token for the webhook API (local use).",
  usage,
  async run(args) {
    let v: Record<string, string | boolean | undefined>;
    try {
      v = parseArgs({
        args,
        options: {
          sub: { type: "string" },
          project: { type: "string" },
          scope: { type: "string" },
          signing: { type: "boolean" },
          signer: { type: "string" },
          ttl: { type: "string", default: "1h" },
          "jwt-secret-file": { type: "string" },
          "jwt-issuer": { type: "string" },
          "jwt-audience": { type: "string" },
        },
        strict: true,
        allowPositionals: false,
      }).values;
    } catch (err) {
      throw new UsageError(`${(err as Error).message}\n\n${usage}`);
    }
    let token: string;
    try {
      if (typeof v.sub !== "string" || !v.sub) {
        throw new Error("--sub USER is required: it names the user the token acts for");
      }
      const secret = loadSecret({ jwtSecretFile: str(v["jwt-secret-file"]) });
      if (!secret) throw new Error(`no secret: pass --jwt-secret-file or set ${SECRET_ENV}`);
      token = await mintToken({
        secret,
        sub: v.sub,
        projectId: str(v.project),
        scope: scopeOf(str(v.scope), v.signing === true, str(v.signer)),
        ttlSeconds: parseDurationSeconds(str(v.ttl) ?? "1h", "--ttl"),
        issuer: str(v["jwt-issuer"]),
        audience: str(v["jwt-audience"]),
      });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    process.stdout.write(`${token}\n`);
    return 0;
  },
};

const str = (v: string | boolean | undefined): string | undefined => (typeof v === "string" ? v : undefined);

/** --scope plus what --signing and --signer add. */
export function scopeOf(scope: string | undefined, signing: boolean, signer: string | undefined): string {
  const scopes = (scope ?? "").split(" ").filter(Boolean);
  if (signing) scopes.push(SIGNING_SCOPE);
  if (signer !== undefined) {
    const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(signer);
    if (!m)
      throw new Error(
        `--signer ${JSON.stringify(signer)} must be NAMESPACE/NAME of a RemoteSigner, for example video/signer-a`,
      );
    scopes.push(signerSigningScope(m[1]!, m[3]!));
  }
  return [...new Set(scopes)].join(" ");
}
