// Networks the node knows by name. For these it fills in the protocol Controller address itself
// (cmd/livepeer/starter: configOptions); any other name - a devnet included - also needs
// -ethController, or the node talks to the zero address.
export const OFFCHAIN = "offchain";
export const DEVNET = "devnet";

export const BUILT_IN_CONTROLLERS: Readonly<Record<string, string>> = {
  mainnet: "0xf96d54e490317c557a967abfa5d6e33006be69b3",
  "arbitrum-one-mainnet": "0xD8E8328501E9645d16Cf49539efC04f734606ee4",
  rinkeby: "0x9a9827455911a858E55f07911904fACC0D66027E",
  "arbitrum-one-rinkeby": "0x9ceC649179e2C7Ab91688271bcD09fb707b3E574",
};

/** Still known to the node but deprecated (their chains are gone). */
export const DEPRECATED_NETWORKS: ReadonlySet<string> = new Set(["rinkeby", "arbitrum-one-rinkeby"]);

export function isOnChain(network: string): boolean {
  return network !== OFFCHAIN;
}

export function needsEthController(network: string): boolean {
  return isOnChain(network) && !Object.hasOwn(BUILT_IN_CONTROLLERS, network);
}
