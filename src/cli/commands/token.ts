import { parseArgs } from "node:util";
import { loadSecret, SECRET_ENV } from "../../api/auth/key-sources.ts";
import { mintToken } from "../../api/auth/mint.ts";
import { parseDurationSeconds } from "../../api/options/parse.ts";
import { type Command, UsageError } from "../command.ts";

const usage = `Usage: livepeer-operator token --sub USER [options]

Mints an HS256 bearer token for the webhook API with the same secret the API server uses
(--jwt-secret-file or ${SECRET_ENV}) and prints only the token, for local use:
  curl -H "Authorization: Bearer $(livepeer-operator token --sub alice)" http://127.0.0.1:3000/api/webhook

Options:
  --sub USER              user id (the token's 'sub'; required)
  --project ID            project id (default: the user's default project)
  --scope "S1 S2"         space-separated scopes: admin, events:write
  --ttl DURATION          lifetime, e.g. 3600, 30m, 12h, 7d (default 1h)
  --jwt-secret-file FILE  the HS256 secret (default: $${SECRET_ENV})
  --jwt-issuer ISS        'iss' claim (when the server requires one)
  --jwt-audience AUD      'aud' claim (when the server requires one)`;

export const command: Command = {
  name: "token",
  summary: "Mint a bearer token for the webhook API (local use).",
  usage,
  async run(args) {
    let v: Record<string, string | undefined>;
    try {
      v = parseArgs({
        args,
        options: {
          sub: { type: "string" },
          project: { type: "string" },
          scope: { type: "string" },
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
      if (!v.sub) throw new Error("--sub USER is required: it names the user the token acts for");
      const secret = loadSecret({ jwtSecretFile: v["jwt-secret-file"] });
      if (!secret) throw new Error(`no secret: pass --jwt-secret-file or set ${SECRET_ENV}`);
      token = await mintToken({
        secret,
        sub: v.sub,
        projectId: v.project,
        scope: v.scope,
        ttlSeconds: parseDurationSeconds(v.ttl!, "--ttl"),
        issuer: v["jwt-issuer"],
        audience: v["jwt-audience"],
      });
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    process.stdout.write(`${token}\n`);
    return 0;
  },
};
