// The devnet: a local dev chain with the Livepeer protocol deployed and accounts ready.

export {
  type AccountPlan,
  accountName,
  createAccounts,
  DEFAULT_ACCOUNT_PLAN,
  type DevnetAccount,
  defaultServiceURI,
  deployerWallet,
  type Role,
  roleWallet,
} from "./accounts.ts";
export {
  advanceRounds,
  callReward,
  changeServiceURI,
  DevnetActionError,
  type DevnetSession,
  drainDeposit,
  freezeChain,
  openDevnet,
  unbondAll,
} from "./actions.ts";
export {
  CHAIN_HOST,
  DEFAULT_CHAIN_PORT,
  type DevChain,
  type DevChainOptions,
  startDevChain,
} from "./chain.ts";
export { contractId } from "./contract-id.ts";
export { contractAt, deployProtocol, devnetProvider } from "./deploy.ts";
export {
  DEFAULT_DEPLOYMENTS_DIR,
  type DeployedContract,
  type DeploymentRecord,
  readDeployments,
  UNREGISTERED_CONTRACTS,
  writeDeployments,
} from "./deployment-record.ts";
export { type DevnetDownOptions, devnetDown } from "./down.ts";
export { DEVNET_CHAIN_ID, DEVNET_MNEMONIC } from "./hardhat-config.ts";
export { readPasswordFile, unlockKeystore } from "./keystore.ts";
export { DEVNET_PROTOCOL_PARAMS, type ProtocolParams } from "./protocol-params.ts";
export { type DevnetPaths, type DevnetState, devnetPaths, readDevnetState } from "./state.ts";
export { type AccountStatus, type DevnetStatus, formatDevnetStatus, readDevnetStatus } from "./status.ts";
export { runRoundTicker, tickerWallet } from "./ticker.ts";
export { type RunningTicker, readTickerPid, stopTicker } from "./ticker-control.ts";
export { type DevnetUpOptions, devnetUp } from "./up.ts";
