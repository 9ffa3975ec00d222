// Plain JSON-RPC over HTTP for probes that must not hang or retry (readiness, reachability):
// ethers' provider retries forever when a URL does not answer.

export class RpcUnreachableError extends Error {
  readonly url: string;
  constructor(url: string, cause: unknown) {
    const why = cause instanceof Error ? (causeCode(cause) ?? cause.message) : String(cause);
    super(
      `cannot reach the chain's JSON-RPC at ${url} (${why}): is the devnet up? ('livepeer-operator devnet status')`,
    );
    this.name = "RpcUnreachableError";
    this.url = url;
  }
}

function causeCode(err: Error): string | undefined {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message;
}

export async function rpcCall<T>(
  url: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = 2_000,
): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (err) {
    throw new RpcUnreachableError(url, err);
  }
  if (!response.ok) throw new RpcUnreachableError(url, new Error(`HTTP ${response.status}`));
  const body = (await response.json()) as { result?: T; error?: { message: string } };
  if (body.error) throw new Error(`${method} at ${url}: ${body.error.message}`);
  return body.result as T;
}

/** The chain id at `url`, or an RpcUnreachableError naming the URL. */
export async function chainIdAt(url: string, timeoutMs?: number): Promise<number> {
  return Number(await rpcCall<string>(url, "eth_chainId", [], timeoutMs));
}
