// A gateway's price caps and renditions (server.BroadcastCfg, BroadcastJobVideoProfiles), set from
// the flags at start and changed live on the CLI port with the node's form fields, checks and
// answers: /setBroadcastConfig (maxPricePerUnit + pixelsPerUnit [+ currency], transcodingOptions),
// /getBroadcastConfig, /setMaxPriceForCapability (all five fields required, gateways only).

import { presetsFrom, type VideoPreset } from "../../media/presets.ts";
import { pipelineCapability } from "../../node/client/capabilities.ts";
import type { PerPixel } from "../../node/pricing/price.ts";
import {
  div,
  floatString,
  isZero,
  mul,
  parseGoRat,
  type Rational,
  rational,
  ratText,
} from "../../node/pricing/rational.ts";
import type { GlogLevel } from "../glog.ts";

type Log = (level: GlogLevel, where: string, message: string) => void;

export type CliAnswer = { status: number; text: string };

const WEI_PER_ETH = rational(10n ** 18n);

export class BroadcastConfig {
  /** undefined: any price. A currency other than wei/ETH needs the chain's price feed (never read here). */
  maxPrice: PerPixel | undefined;
  readonly capabilityMaxPrices = new Map<string, Map<string, PerPixel>>();
  profiles: VideoPreset[];
  private readonly onChain: boolean;
  private readonly log: Log;

  constructor(
    options: { transcodingOptions: string; maxPricePerUnit: string; pixelsPerUnit: string },
    onChain: boolean,
    log: Log,
  ) {
    this.onChain = onChain;
    this.log = log;
    this.profiles = presetsFrom(options.transcodingOptions);
    const m = /^(\d+(?:\.\d+)?)([A-Za-z][A-Za-z0-9]*)?$/.exec(options.maxPricePerUnit);
    const amount = m ? parseGoRat(m[1]!) : undefined;
    const pixels = parseGoRat(options.pixelsPerUnit);
    if (amount && pixels && !isZero(pixels) && !isZero(amount))
      this.maxPrice = toPerPixel(div(amount, pixels), m?.[2] ?? "");
  }

  /** What the node prints at start about its cap (starter.go; the node does it on chain). */
  logStartup(maxPricePerUnit: string): void {
    if (this.maxPrice?.unit === "wei") {
      this.log(
        "I",
        "starter.go:1178",
        `Maximum transcoding price: ${floatString(this.maxPrice.perPixel, 3)} wei per pixel`,
      );
    } else if (!this.maxPrice) {
      this.log(
        "I",
        "starter.go:1185",
        `Maximum transcoding price per pixel is not greater than 0: ${maxPricePerUnit}, broadcaster is currently set to accept ANY price.`,
      );
    } else {
      this.logCap(this.maxPrice, () => "", "starter.go:1178");
    }
  }

  /** The cap in wei per pixel the simulator can apply (a currency cap cannot be converted here). */
  get weiCap(): Rational | undefined {
    return this.maxPrice?.unit === "wei" ? this.maxPrice.perPixel : undefined;
  }

  get transcodingOptions(): string {
    return this.profiles.map((p) => p.name).join(",");
  }

  /** The body of GET /getBroadcastConfig (MaxPrice as Go writes a *big.Rat: "1000", "1/3" or null). */
  broadcastConfigBody(): { MaxPrice: string | null; TranscodingOptions: string } {
    return {
      MaxPrice: this.weiCap ? ratText(this.weiCap) : null,
      TranscodingOptions: this.transcodingOptions,
    };
  }

  /** Per pipeline and model, the cap per pixel as Go's Rat text (currency caps with their currency). */
  capabilityMaxPricesBody(): Record<string, Record<string, string>> {
    const out: Record<string, Record<string, string>> = {};
    for (const [pipeline, models] of this.capabilityMaxPrices) {
      out[pipeline] = Object.fromEntries(
        [...models].map(([model, p]) => [
          model,
          p.unit === "wei" ? ratText(p.perPixel) : `${ratText(p.perPixel)}${p.currency}`,
        ]),
      );
    }
    return out;
  }

  /** POST /setBroadcastConfig (server/handlers.go setBroadcastConfigHandler). */
  setBroadcastConfig(form: URLSearchParams): CliAnswer {
    const price = form.get("maxPricePerUnit") ?? "";
    const pixels = form.get("pixelsPerUnit") ?? "";
    const currency = form.get("currency") ?? "";
    const options = form.get("transcodingOptions") ?? "";
    if ((price === "" || pixels === "") && options === "") {
      return this.reject("missing form params (maxPricePerUnit AND pixelsPerUnit) or transcodingOptions");
    }
    if (price !== "" && pixels !== "") {
      const perPixel = this.parsePerPixel(price, pixels);
      if (typeof perPixel === "string") return this.reject(perPixel);
      if (isZero(perPixel) || perPixel.num < 0n) {
        this.maxPrice = undefined;
      } else {
        const converted = this.convert(perPixel, currency);
        if (typeof converted === "string") return this.reject(converted);
        this.maxPrice = converted;
        this.logCap(converted, (p) => `Maximum transcoding price: ${p} wei per pixel`, "handlers.go:168");
      }
    }
    if (options !== "") {
      const profiles = presetsFrom(options);
      if (profiles.length === 0) return this.reject(`invalid transcoding options: ${options}`);
      this.profiles = profiles;
      this.log("I", "handlers.go:196", `Transcode Job Type: [${profiles.map((p) => p.name).join(" ")}]`);
    }
    return { status: 200, text: "" };
  }

  /** POST /setMaxPriceForCapability (server/handlers.go setMaxPriceForCapability). */
  setMaxPriceForCapability(form: URLSearchParams, isGateway: boolean): CliAnswer {
    for (const field of ["maxPricePerUnit", "pixelsPerUnit", "currency", "pipeline", "modelID"]) {
      if ((form.get(field) ?? "") === "") return this.reject(`missing form param: ${field}`);
    }
    if (!isGateway) return this.reject("Node must be gateway node to set max price per capability");
    const pipeline = form.get("pipeline")!;
    const modelID = form.get("modelID")!;
    if (pipelineCapability(pipeline) === undefined) return this.reject("pipeline not supported");
    const perPixel = this.parsePerPixel(form.get("maxPricePerUnit")!, form.get("pixelsPerUnit")!);
    if (typeof perPixel === "string") return this.reject(perPixel);
    if (isZero(perPixel) || perPixel.num < 0n) {
      return this.reject(`pricePerPixel needs to be > 0: ${floatString(perPixel, 3)}`);
    }
    const converted = this.convert(perPixel, form.get("currency")!);
    if (typeof converted === "string") return this.reject(converted);
    let models = this.capabilityMaxPrices.get(pipeline);
    if (!models) {
      models = new Map();
      this.capabilityMaxPrices.set(pipeline, models);
    }
    models.set(modelID, converted);
    this.logCap(
      converted,
      (p) => `Maximum price per unit set to ${p} wei for capability=${pipeline} model_id=${modelID}`,
      "handlers.go:240",
    );
    return { status: 200, text: "" };
  }

  private parsePerPixel(price: string, pixels: string): Rational | string {
    const pr = parseGoRat(price);
    if (!pr) return `Error parsing pricePerUnit value: ${price}`;
    const px = parseGoRat(pixels);
    if (!px) return `Error parsing pixelsPerUnit value: ${pixels}`;
    if (px.num <= 0n) return `pixels per unit must be greater than 0, provided ${pixels}`;
    return div(pr, px);
  }

  /** core.NewAutoConvertedPrice: wei and ETH convert; another currency needs the chain's price feed. */
  private convert(perPixel: Rational, currency: string): PerPixel | string {
    const lower = currency.toLowerCase();
    if (lower === "" || lower === "wei" || lower === "eth") return toPerPixel(perPixel, currency);
    if (!this.onChain) return "error converting price: PriceFeedWatcher is not initialized";
    return toPerPixel(perPixel, currency);
  }

  private logCap(cap: PerPixel, line: (perPixel: string) => string, where: string): void {
    if (cap.unit === "wei") this.log("I", where, line(floatString(cap.perPixel, 3)));
    else {
      this.log(
        "W",
        "simulator.go:9",
        `Simulated: a cap of ${ratText(cap.perPixel)} ${cap.currency} per pixel needs the chain's price feed, which the simulator does not read: it applies no cap`,
      );
    }
  }

  private reject(message: string): CliAnswer {
    this.log("E", "handlers.go:1750", `HTTP Response Error statusCode=400 err=${message}`);
    return { status: 400, text: message };
  }
}

function toPerPixel(perPixel: Rational, currency: string): PerPixel {
  const upper = currency.toUpperCase();
  if (upper === "" || upper === "WEI") return { unit: "wei", perPixel };
  if (upper === "ETH") return { unit: "wei", perPixel: mul(perPixel, WEI_PER_ETH) };
  return { unit: "currency", currency: upper, perPixel };
}
