// The service URI an orchestrator registers on chain (ServiceRegistry) is where gateways dial
// it: https://<host>:<port>, nothing more (the node builds it from -serviceAddr the same way).

export class ServiceUriError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ServiceUriError";
  }
}

export function validateServiceURI(input: string): string {
  const hint = "a service URI looks like https://orch.example.com:8935";
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new ServiceUriError(`'${input}' is not a URI: ${hint}`);
  }
  if (url.protocol !== "https:")
    throw new ServiceUriError(`'${input}': gateways dial orchestrators over https; ${hint}`);
  if (url.username || url.password) throw new ServiceUriError(`'${input}' carries credentials; ${hint}`);
  if ((url.pathname !== "/" && url.pathname !== "") || url.search || url.hash) {
    throw new ServiceUriError(`'${input}' has a path, query or fragment; ${hint}`);
  }
  // Keep exactly what was typed (minus a trailing slash): the node compares it as a string.
  return input.replace(/\/$/, "");
}
