// Price endpoints of the CLI port, registered on every role as the node registers them
// (server/webserver.go), each refusing what the node refuses for the wrong role:
// /setBroadcastConfig, /getBroadcastConfig, /setMaxPriceForCapability (a gateway's caps) and
// /setPriceForBroadcaster (an orchestrator's price for one gateway).
import { div, floatString, parseGoRat } from "../node/pricing/rational.ts";
import { formOf, type Handler, sendJson, sendText } from "./http-server.ts";
import type { RouteContext } from "./route-context.ts";

/** The node's check (server/handlers.go), unanchored alternation included: "default" anywhere at the end passes. */
const BROADCASTER_ADDRESS = /^0x[0-9a-fA-F]{40}|default$/;

export function cliPriceRoutes(c: RouteContext): Record<string, Handler> {
  const answer = (res: Parameters<Handler>[1], a: { status: number; text: string }): void => {
    if (a.status === 200) {
      res.writeHead(200);
      res.end(a.text);
    } else {
      sendText(res, a.status, a.text);
    }
  };
  return {
    "/setBroadcastConfig": async (req, res, url) =>
      answer(res, c.broadcast.setBroadcastConfig(await formOf(req, url))),
    "/getBroadcastConfig": (_req, res) => sendJson(res, c.broadcast.broadcastConfigBody()),
    "/setMaxPriceForCapability": async (req, res, url) =>
      answer(res, c.broadcast.setMaxPriceForCapability(await formOf(req, url), c.node.role === "gateway")),
    "/setPriceForBroadcaster": async (req, res, url) =>
      answer(res, setPriceForBroadcaster(c, await formOf(req, url))),
  };
}

function setPriceForBroadcaster(c: RouteContext, form: URLSearchParams): { status: number; text: string } {
  for (const field of ["pricePerUnit", "pixelsPerUnit", "broadcasterEthAddr"]) {
    if ((form.get(field) ?? "") === "") return { status: 400, text: `missing form param: ${field}` };
  }
  if (c.node.role !== "orchestrator") {
    return { status: 400, text: "Node must be orchestrator node to set price for broadcaster" };
  }
  const address = form.get("broadcasterEthAddr")!;
  const price = form.get("pricePerUnit")!;
  const pixels = form.get("pixelsPerUnit")!;
  const currency = form.get("currency") ?? "";
  if (!BROADCASTER_ADDRESS.test(address)) {
    return { status: 400, text: `broadcasterEthAddr is not a valid eth address, provided ${address}` };
  }
  const pr = parseGoRat(price);
  if (!pr) return { status: 400, text: `error parsing pricePerUnit value: ${price}` };
  if (pr.num < 0n)
    return { status: 400, text: `price unit must be greater than or equal to 0, provided ${price}` };
  const px = parseGoRat(pixels);
  if (!px) return { status: 400, text: `error parsing pixelsPerUnit value: ${pixels}` };
  if (px.num <= 0n)
    return { status: 400, text: `pixels per unit must be greater than 0, provided ${pixels}` };
  const lower = currency.toLowerCase();
  if (lower !== "" && lower !== "wei" && lower !== "eth" && c.node.network === "offchain") {
    return { status: 400, text: "error converting price: PriceFeedWatcher is not initialized" };
  }
  const key = address.toLowerCase();
  if (key === "default") {
    c.state.pricePerUnit = `${price}${currency}`;
    c.state.pixelsPerUnit = pixels;
  } else {
    c.state.broadcasterPrices.set(key, { pricePerUnit: `${price}${currency}`, pixelsPerUnit: pixels });
  }
  if (lower === "" || lower === "wei") {
    const perPixel = floatString(div(pr, px), 3);
    c.log(
      "I",
      "handlers.go:690",
      key === "default"
        ? `Price: ${perPixel} wei per pixel`
        : `Price: ${perPixel} wei per pixel for broadcaster ${address}`,
    );
  }
  return {
    status: 200,
    text: `Price per pixel set to ${price} wei for ${pixels} pixels for broadcaster ${address}\n`,
  };
}
