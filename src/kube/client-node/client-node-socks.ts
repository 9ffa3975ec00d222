// What @kubernetes/client-node's config.js takes from socks-proxy-agent, loaded on first use (see
// slim-client-node.ts): only a kubeconfig with a socks5:// proxy-url builds one. Loading it
// eagerly would also load agent-base, whose ES module import of node:http loads Node's bundled
// undici (see builtin-http.ts).
import { requireFromClientNode } from "./require-from-client-node.ts";

type Socks = typeof import("socks-proxy-agent");

export class SocksProxyAgent {
  constructor(...args: unknown[]) {
    // biome-ignore lint/correctness/noConstructorReturn: stands in for the real class, built on first use
    return Reflect.construct(requireFromClientNode<Socks>("socks-proxy-agent").SocksProxyAgent, args);
  }
}
