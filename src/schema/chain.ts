// The chain fields an Orchestrator and a Gateway share, and the rules that keep an on-chain node
// from starting in a state where it hangs or exits.
import { z } from "zod";
import { BUILT_IN_CONTROLLERS } from "../node/config/networks.ts";
import type { CrossFieldRule } from "./cross-field-rule.ts";
import { objectName } from "./kubernetes-fields.ts";

const ETH_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function ethAddress(field: string) {
  return z.string().regex(ETH_ADDRESS, {
    error: (iss) =>
      `${field} ${JSON.stringify(iss.input)} is not an Ethereum address: 0x followed by 40 hex digits`,
  });
}

export const chainFields = {
  network: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, {
      error: (iss) =>
        `network ${JSON.stringify(iss.input)} is not a network name: lower-case letters, digits and '-', for example offchain, devnet or arbitrum-one-mainnet`,
    })
    .default("offchain")
    .describe(
      "Network the node joins (-network): offchain (default, no chain), devnet, or a named network such as arbitrum-one-mainnet. Any network but offchain needs keystoreSecret and a chain URL (ethUrl or devnet).",
    ),
  ethUrl: z
    .string()
    .max(2048)
    .regex(/^(https?|wss?):\/\//, {
      error: (iss) =>
        `ethUrl ${JSON.stringify(iss.input)} must be a URL starting with http://, https://, ws:// or wss:// (use https:// for remote endpoints)`,
    })
    .optional()
    .describe(
      "JSON-RPC URL of the layer-2 chain (-ethUrl), for example https://arb1.arbitrum.io/rpc; use https:// for remote endpoints. Filled from the devnet ConfigMap when devnet is set.",
    ),
  ethAcctAddr: ethAddress("ethAcctAddr")
    .optional()
    .describe(
      "The node's Ethereum account (-ethAcctAddr), 0x followed by 40 hex digits; its key must be in keystoreSecret. Absent: the keystore's only account.",
    ),
  ethController: ethAddress("ethController")
    .optional()
    .describe(
      "Address of the protocol's Controller contract (-ethController), for networks the node has no built-in address for. Filled from the devnet ConfigMap when devnet is set.",
    ),
  devnet: objectName("ConfigMap")
    .optional()
    .describe(
      "Name of a ConfigMap in this namespace holding a devnet deployment, as `livepeer-operator devnet configmap` writes it: one <ContractName>.json per contract and ethUrl (the chain's URL as the node pods reach it), labelled app.kubernetes.io/managed-by=livepeer-operator and app.kubernetes.io/component=devnet-deployment. It supplies ethUrl and ethController where they are not set. Set network too, for example devnet.",
    ),
  keystoreSecret: objectName("Secret")
    .optional()
    .describe(
      "Name of a Secret in this namespace with keys key.json (the account's keystore file) and password (its passphrase, no trailing newline). Required for any network but offchain: without it the node prompts for a passphrase and hangs.",
    ),
};

/** The chain fields of a parsed spec (both kinds' specs have them). */
export type ChainSpec = z.infer<z.ZodObject<typeof chainFields>>;

export const chainRules: readonly CrossFieldRule<ChainSpec>[] = [
  {
    rule: "self.network == 'offchain' || has(self.keystoreSecret)",
    fieldPath: ".keystoreSecret",
    reason: "FieldValueRequired",
    message:
      "keystoreSecret is required when network is not offchain: name a Secret with keys key.json and password (without one the node prompts for a passphrase and hangs)",
    messageExpression:
      '"keystoreSecret is required when network is " + self.network + " (not offchain): name a Secret with keys key.json and password (without one the node prompts for a passphrase and hangs)"',
    holds: (s) => s.network === "offchain" || s.keystoreSecret !== undefined,
  },
  {
    rule: "self.network == 'offchain' || has(self.ethUrl) || has(self.devnet)",
    fieldPath: ".ethUrl",
    reason: "FieldValueRequired",
    message:
      "ethUrl is required when network is not offchain: set the chain's JSON-RPC URL, or name a devnet deployment ConfigMap in devnet",
    messageExpression:
      '"ethUrl is required when network is " + self.network + ": set the chain\'s JSON-RPC URL, for example https://arb1.arbitrum.io/rpc, or name a devnet deployment ConfigMap in devnet"',
    holds: (s) => s.network === "offchain" || s.ethUrl !== undefined || s.devnet !== undefined,
  },
  {
    rule: "!has(self.devnet) || self.network != 'offchain'",
    fieldPath: ".network",
    reason: "FieldValueInvalid",
    message: "devnet names a chain deployment but network is offchain: set network, for example devnet",
    messageExpression:
      '"devnet names the chain deployment " + self.devnet + " but network is offchain: set network, for example devnet"',
    holds: (s) => s.devnet === undefined || s.network !== "offchain",
  },
  {
    // The node fills in the Controller address only for networks it knows; elsewhere it would
    // talk to the zero address (src/node/config/rules/chain.ts: controllerAddress).
    rule: `self.network == 'offchain' || self.network in [${Object.keys(BUILT_IN_CONTROLLERS)
      .map((n) => `'${n}'`)
      .join(", ")}] || has(self.ethController) || has(self.devnet)`,
    fieldPath: ".ethController",
    reason: "FieldValueRequired",
    message:
      "ethController is required for a network the node has no built-in protocol Controller address for: set ethController to that chain's Controller contract, name a devnet deployment ConfigMap in devnet, or use a network the node knows (arbitrum-one-mainnet, mainnet)",
    messageExpression:
      '"network " + self.network + " has no built-in protocol Controller address: set ethController to that chain\'s Controller contract (0x followed by 40 hex digits), name a devnet deployment ConfigMap in devnet, or use a network the node knows (arbitrum-one-mainnet, mainnet)"',
    holds: (s) =>
      s.network === "offchain" ||
      Object.hasOwn(BUILT_IN_CONTROLLERS, s.network) ||
      s.ethController !== undefined ||
      s.devnet !== undefined,
  },
];
