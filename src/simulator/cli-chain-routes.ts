// The CLI port's on-chain duty endpoints, performed for real through the simulated node's
// Ethereum client and answered as go-livepeer's server/handlers.go answers them: /reward,
// /fundDepositAndReserve, and /setOrchestratorConfig (price, reward cut and fee share, service
// URI). An off-chain node has no Ethereum client: 500 "missing ETH client".
import { formOf, type Handler, sendText } from "./http-server.ts";
import type { RouteContext } from "./route-context.ts";

export type Answer = { status: number; text: string };
const ok = (text = ""): Answer => ({ status: 200, text });
const errorText = (err: unknown) => (err as Error).message;

/** The node's eth.FromPerc: percent as the protocol's millionths. */
const fromPerc = (percent: number) => BigInt(Math.round(percent * 10_000));

export function cliChainRoutes(c: RouteContext): Record<string, Handler> {
  const answer = (res: Parameters<Handler>[1], a: Answer): void => {
    if (a.status === 200) {
      res.writeHead(200);
      res.end(a.text);
    } else {
      sendText(res, a.status, a.text);
    }
  };
  return {
    "/reward": async (_req, res) => answer(res, await reward(c)),
    "/fundDepositAndReserve": async (req, res, url) =>
      answer(res, await fundDepositAndReserve(c, await formOf(req, url))),
    "/setOrchestratorConfig": async (req, res, url) =>
      answer(res, await setOrchestratorConfig(c, await formOf(req, url))),
  };
}

// As rewardHandler (and the node's round initializer, which starts a round nobody started).
async function reward(c: RouteContext): Promise<Answer> {
  const eth = c.eth;
  if (!eth) return { status: 500, text: "missing ETH client" };
  c.log("I", "handlers.go:1106", "Calling reward");
  try {
    if (!(await eth.read<boolean>("RoundsManager", "currentRoundInitialized"))) {
      const round = await eth.read<bigint>("RoundsManager", "currentRound");
      c.log(
        "I",
        "round_initializer.go:133",
        `New round - preparing to initialize round to join active set, current round is ${round}`,
      );
      await eth.send("RoundsManager", "initializeRound");
    }
    await eth.send("BondingManager", "reward");
  } catch (err) {
    c.log(
      "E",
      "handlers.go:1110",
      `HTTP Response Error statusCode=500 err=Error calling reward: ${errorText(err)}`,
    );
    return { status: 500, text: `Error calling reward: ${errorText(err)}` };
  }
  c.log("I", "handlers.go:1117", "Call to reward successful");
  return ok();
}

/** common.ParseBigInt: a base-10 integer (wei). */
function parseBigInt(value: string): bigint | undefined {
  return /^[+-]?\d+$/.test(value) ? BigInt(value) : undefined;
}

/** As fundDepositAndReserveHandler (also a remote signer's: its account holds the deposit). */
export async function fundDepositAndReserve(
  c: Pick<RouteContext, "eth">,
  form: URLSearchParams,
): Promise<Answer> {
  for (const field of ["depositAmount", "reserveAmount"]) {
    if ((form.get(field) ?? "") === "") return { status: 400, text: `missing form param: ${field}` };
  }
  const eth = c.eth;
  if (!eth) return { status: 500, text: "missing ETH client" };
  const deposit = parseBigInt(form.get("depositAmount")!);
  if (deposit === undefined)
    return { status: 400, text: `invalid depositAmount: invalid big int ${form.get("depositAmount")}` };
  const reserve = parseBigInt(form.get("reserveAmount")!);
  if (reserve === undefined)
    return { status: 400, text: `invalid reserveAmount: invalid big int ${form.get("reserveAmount")}` };
  try {
    await eth.send("TicketBroker", "fundDepositAndReserve", [deposit, reserve], deposit + reserve);
  } catch (err) {
    return { status: 500, text: `could not execute fundDepositAndReserve: ${errorText(err)}` };
  }
  return ok("fundDepositAndReserve success");
}

// As setOrchestratorConfigHandler: the price when price and pixels come together; the commission
// rates (a transaction) only when both are given and one differs from the chain; the service URI.
async function setOrchestratorConfig(c: RouteContext, form: URLSearchParams): Promise<Answer> {
  const eth = c.eth;
  if (!eth) return { status: 500, text: "missing ETH client" };
  const price = form.get("pricePerUnit") ?? "";
  const pixels = form.get("pixelsPerUnit") ?? "";
  if (price !== "" && pixels !== "") {
    if (!/^\d+(\.\d+)?$/.test(price))
      return { status: 400, text: `error parsing pricePerUnit value: ${price}` };
    if (!/^\d+$/.test(pixels) || Number(pixels) <= 0) {
      return { status: 400, text: `pixels per unit must be greater than 0, provided ${pixels}` };
    }
    c.state.pricePerUnit = `${price}${form.get("currency") ?? ""}`;
    c.state.pixelsPerUnit = pixels;
    c.log("I", "handlers.go:688", `Price: ${(Number(price) / Number(pixels)).toFixed(3)} wei per pixel`);
  }
  const cutText = form.get("blockRewardCut") ?? "";
  const feeText = form.get("feeShare") ?? "";
  const cut = cutText === "" ? undefined : Number(cutText);
  const fee = feeText === "" ? undefined : Number(feeText);
  if (cut !== undefined && Number.isNaN(cut)) {
    return {
      status: 400,
      text: `Cannot convert block reward cut: strconv.ParseFloat: parsing "${cutText}": invalid syntax`,
    };
  }
  if (fee !== undefined && Number.isNaN(fee)) {
    return {
      status: 400,
      text: `Cannot convert fee share: strconv.ParseFloat: parsing "${feeText}": invalid syntax`,
    };
  }
  if (cut !== undefined && fee !== undefined) {
    try {
      const t = await eth.read<{ rewardCut: bigint; feeShare: bigint }>("BondingManager", "getTranscoder", [
        await eth.address(),
      ]);
      if (t.rewardCut !== fromPerc(cut) || t.feeShare !== fromPerc(fee)) {
        c.log(
          "I",
          "handlers.go:632",
          `Setting orchestrator commission rates for ${await eth.address()}: reward cut=${cut} feeshare=${fee}`,
        );
        await eth.send("BondingManager", "transcoder", [fromPerc(cut), fromPerc(fee)]);
      }
    } catch (err) {
      return { status: 500, text: errorText(err) };
    }
  }
  const serviceURI = form.get("serviceURI") ?? "";
  if (serviceURI !== "") {
    try {
      new URL(serviceURI);
    } catch {
      return { status: 400, text: `parse "${serviceURI}": invalid URI for request` };
    }
    c.log("I", "handlers.go:717", `Storing service URI ${serviceURI} in service registry...`);
    c.state.serviceUri = serviceURI;
  }
  return ok();
}
