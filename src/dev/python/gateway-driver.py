"""Drives the official Livepeer gateway SDK (livepeer-gateway) from the command line, for tests and
`livepeer-operator python-sdk`. One JSON document on stdout per call.

  discover (--discovery-url URL | --signer-url URL) [--signer-headers JSON] [--caps PIPELINE/MODEL ...]
      discover_orchestrators(discovery_url=URL | signer_url=URL[, signer_headers=...][, capabilities=...])
      -> {"orchestrators": [...]}
  orch-info --url https://HOST:PORT [--signer-url URL [--signer-headers JSON]]
      get_orch_info(URL[, signer_url=..., signer_headers=...]) -> {"orchestratorInfo": {...}}: the
      protobuf OrchestratorInfo as MessageToDict with the .proto's field names, as protobuf's JSON
      mapping has them: bytes in base64, 64-bit integers as strings, fields at their default value
      left out, e.g. {"transcoder": "https://127.0.0.1:8935", "price_info": {"pricePerUnit": "100", ...}}
  payment --url https://HOST:PORT --signer-url URL [--signer-headers JSON] [--type live|lv2v|fixed]
          [--app APP] [--manifest-id ID] [--count N]
      get_orch_info with the signer, then PaymentSession(signer_url, info, type=...).get_payment()
      N times (the session carries the signer's state) -> {"payments": [{"payment": <base64
      protobuf Payment>, "segCreds": <base64 SegData>}, ...]}

On an SDK error: {"error": "<the SDK's message>", "type": "<exception class>"} and exit 1 (token=
values in URLs it quotes are masked).
A wrong command line exits 2 (argparse).
"""

import argparse
import json
import re
import sys

# Discovery and hook URLs in this project carry a token in their query (the Gateway's node hooks):
# the SDK's error texts quote URLs, so token values are masked before printing.
_TOKEN = re.compile(r"(token=)[^&\s'\")]+")


def _capabilities(caps: list[str]):
    """`pipeline-id/model` values (as the SDK's discovery query has them) as a Capabilities message."""
    from livepeer_gateway import CapabilityId, lp_rpc_pb2

    message = lp_rpc_pb2.Capabilities()
    for value in caps:
        pipeline, sep, model = value.partition("/")
        name = pipeline.strip().upper().replace("-", "_")
        if not sep or not model or name not in CapabilityId.__members__:
            known = ", ".join(
                m.lower().replace("_", "-") for m, v in CapabilityId.__members__.items() if v >= 0
            )
            raise ValueError(f"--caps {value!r}: expected PIPELINE/MODEL with PIPELINE one of {known}")
        cap_id = int(CapabilityId[name])
        message.capacities[cap_id] = 1
        message.constraints.PerCapability[cap_id].models[model]  # touching the key creates it
    return message


def _signer_kwargs(args: argparse.Namespace) -> dict:
    kwargs = {}
    if args.signer_url:
        kwargs["signer_url"] = args.signer_url
    if args.signer_headers:
        kwargs["signer_headers"] = json.loads(args.signer_headers)
    return kwargs


def discover(args: argparse.Namespace) -> dict:
    from livepeer_gateway import discover_orchestrators

    if bool(args.discovery_url) == bool(args.signer_url):
        raise ValueError("discover: give exactly one of --discovery-url and --signer-url")
    kwargs = {"discovery_url": args.discovery_url} if args.discovery_url else _signer_kwargs(args)
    if args.caps:
        kwargs["capabilities"] = _capabilities(args.caps)
    return {"orchestrators": discover_orchestrators(**kwargs)}


def orch_info(args: argparse.Namespace) -> dict:
    from google.protobuf.json_format import MessageToDict
    from livepeer_gateway import get_orch_info

    info = get_orch_info(args.url, **_signer_kwargs(args))
    return {"orchestratorInfo": MessageToDict(info, preserving_proto_field_name=True)}


def payment(args: argparse.Namespace) -> dict:
    from livepeer_gateway import PaymentSession, get_orch_info

    signer = _signer_kwargs(args)
    info = get_orch_info(args.url, **signer)
    session = PaymentSession(
        args.signer_url,
        info,
        signer_headers=signer.get("signer_headers"),
        type=args.type,
        app=args.app,
    )
    if args.manifest_id:
        session.set_manifest_id(args.manifest_id)
    payments = []
    for _ in range(args.count):
        p = session.get_payment()
        payments.append({"payment": p.payment, "segCreds": p.seg_creds})
    return {"payments": payments}


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="gateway-driver.py", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("discover", help="discover_orchestrators(discovery_url=...)")
    d.add_argument("--discovery-url", help="a URL answering [{\"address\": ...}]")
    d.add_argument("--signer-url", help="a remote signer's base URL (its /discover-orchestrators)")
    d.add_argument("--signer-headers", help="headers for the signer, a JSON object")
    d.add_argument("--caps", nargs="*", default=[], metavar="PIPELINE/MODEL", help="e.g. text-to-image/m")
    d.set_defaults(handler=discover)
    o = sub.add_parser("orch-info", help="get_orch_info(url[, signer_url=...])")
    o.add_argument("--url", required=True, help="https://host:port of an orchestrator")
    o.add_argument("--signer-url", help="a remote signer's base URL: it signs the request")
    o.add_argument("--signer-headers", help="headers for the signer, a JSON object")
    o.set_defaults(handler=orch_info)
    pay = sub.add_parser("payment", help="PaymentSession(signer_url, info).get_payment()")
    pay.add_argument("--url", required=True, help="https://host:port of an orchestrator")
    pay.add_argument("--signer-url", required=True, help="a remote signer's base URL")
    pay.add_argument("--signer-headers", help="headers for the signer, a JSON object")
    pay.add_argument("--type", default="live", choices=["live", "lv2v", "fixed"])
    pay.add_argument("--app", default=None)
    pay.add_argument("--manifest-id", default=None, help="the session's id (a signer needs it after the first payment)")
    pay.add_argument("--count", type=int, default=1)
    pay.set_defaults(handler=payment)
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        result = args.handler(args)
    except Exception as e:  # the SDK's errors (LivepeerGatewayError and ValueError) end up here
        print(json.dumps({"error": _TOKEN.sub(r"\1***", str(e)), "type": type(e).__name__}))
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
