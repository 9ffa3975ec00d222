// The `--delivery-egress` value: `public` (the default: public addresses, and the ranges the
// allowlist permits) or `loopback-only` (every address outside 127.0.0.0/8 and ::1 refused at
// connect time, whatever the allowlist says: for test runs, which must never dial anything else).
import { DEFAULT_DELIVERY_EGRESS, DELIVERY_EGRESS, type DeliveryEgress } from "../delivery/index.ts";

export { DEFAULT_DELIVERY_EGRESS };

export function parseDeliveryEgress(value: string): DeliveryEgress {
  const v = value.trim();
  const found = DELIVERY_EGRESS.find((e) => e === v);
  if (!found) {
    throw new Error(
      `--delivery-egress ${JSON.stringify(v.slice(0, 100))} is not an egress: use ${DELIVERY_EGRESS.join(" or ")} (loopback-only: deliveries reach 127.0.0.0/8 and ::1 only)`,
    );
  }
  return found;
}
