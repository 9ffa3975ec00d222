// server/remote_signer.go RemotePaymentState: the opaque, signed blob a signer hands back with each
// payment and gets again with the next (signers keep no state). Encoded as Go's encoding/json
// encodes the struct (field names as declared, in order; LastUpdate RFC 3339; the orchestrator
// address checksummed), signed by the signer's account (Sign(stateBytes)), and refused unless the
// signature recovers to that account.
import { getAddress } from "ethers";

export interface RemotePaymentState {
  StateID: string;
  PMSessionID: string;
  LastUpdate: string;
  OrchestratorAddress: string;
  App: string;
  AuthExpiry: number;
  SenderNonce: number;
  Balance: string;
  InitialPricePerUnit: number;
  InitialPixelsPerUnit: number;
  Type: string;
  SequenceNumber: number;
  AuthID: string;
}

/** Go's zero time.Time, as encoding/json writes it. */
export const GO_ZERO_TIME = "0001-01-01T00:00:00Z";

export function newPaymentState(fields: Partial<RemotePaymentState>): RemotePaymentState {
  return {
    StateID: "",
    PMSessionID: "",
    LastUpdate: GO_ZERO_TIME,
    OrchestratorAddress: "0x0000000000000000000000000000000000000000",
    App: "",
    AuthExpiry: 0,
    SenderNonce: 0,
    Balance: "",
    InitialPricePerUnit: 0,
    InitialPixelsPerUnit: 0,
    Type: "",
    SequenceNumber: 0,
    AuthID: "",
    ...fields,
  };
}

export function encodePaymentState(state: RemotePaymentState): Buffer {
  // Key order is the struct's: newPaymentState spreads over a literal in that order.
  return Buffer.from(JSON.stringify(newPaymentState(state)));
}

/** json.Unmarshal into the struct: keys matched case-insensitively, unknown ones ignored. */
export function decodePaymentState(bytes: Buffer): RemotePaymentState {
  const parsed = JSON.parse(bytes.toString("utf8")) as unknown;
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
  const byLower = new Map(Object.entries(parsed).map(([k, v]) => [k.toLowerCase(), v]));
  const template = newPaymentState({});
  const out: Record<string, unknown> = {};
  for (const [key, zero] of Object.entries(template)) {
    const value = byLower.get(key.toLowerCase());
    if (value === undefined || value === null) {
      out[key] = zero;
    } else if (typeof value !== typeof zero) {
      throw new Error(
        `json: cannot unmarshal ${typeof value} into Go struct field RemotePaymentState.${key}`,
      );
    } else {
      out[key] = value;
    }
  }
  const state = out as unknown as RemotePaymentState;
  state.OrchestratorAddress = getAddress(state.OrchestratorAddress.toLowerCase());
  return state;
}

/** core.RandomManifestID: 4 random bytes in hex. */
export function randomStateId(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex");
}
