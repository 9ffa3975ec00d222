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

  lv2v --orch-url https://HOST:PORT [URL ...] --model-id MODEL [--wait-seconds S] [--signer-url URL
       [--signer-headers JSON]] [--repeat-seconds S]   (stdin: a clip, base64)
      start_lv2v([URL, ...], StartJobRequest(model_id=MODEL)[, signer_url=...]) (payments on:
      through the signer on chain), publishes the clip's frames at their frame rate with
      MediaPublish (again and again for --repeat-seconds, until the output ends), reads the output back with
      media_output().frames(), then closes the job -> {"job": {manifest_id, publish_url, ...},
      "published": n, "received": m, "sizes": ["WxH", ...]}: received counts the frames decoded
      until none came for 2 s after the last was published (at most --wait-seconds); the frames
      of the segment still open when the job closes are not among them (closing the input
      channel ends the session and its output channel); with --control JSON that message is
      written on the control channel; "event" is the first message of the events channel;
      "output_ended_after": seconds from the start until the output channel ended (the
      orchestrator stopped the session), or null
  lv2v-start --orch-url https://HOST:PORT [URL ...] --model-id MODEL
      start_lv2v without payments or control keepalives, and exits leaving the session open ->
      {"job": {...}}; the SDK tries the URLs in turn (a refusal moves it to the next)

Every command takes --resolve HOST:IP (repeatable, as curl's): HOST is looked up as IP, a stand-in
for cluster DNS when the orchestrator advertises its pod's DNS name (the service URI the SDK then
posts to and the trickle URLs it is given) and the cluster's pods have loopback IPs.

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


def _resolve(pairs: list[str]) -> None:
    """Answers HOST with IP for each HOST:IP (every lookup in this process: urllib, aiohttp)."""
    import socket

    hosts = {}
    for pair in pairs:
        host, sep, ip = pair.rpartition(":")
        if not sep or not host or not ip:
            raise ValueError(f"--resolve {pair!r}: expected HOST:IP")
        hosts[host] = ip
    if not hosts:
        return
    lookup = socket.getaddrinfo

    def getaddrinfo(host, *rest, **kwargs):
        name = host.decode() if isinstance(host, bytes) else host
        return lookup(hosts.get(name, host), *rest, **kwargs)

    socket.getaddrinfo = getaddrinfo


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


def _job_json(job) -> dict:
    return {
        k: getattr(job, k)
        for k in ("manifest_id", "publish_url", "subscribe_url", "control_url", "events_url")
    }


def lv2v_start(args: argparse.Namespace) -> dict:
    from livepeer_gateway import ControlConfig, ControlMode, StartJobRequest, start_lv2v

    job = start_lv2v(
        args.orch_url,
        StartJobRequest(model_id=args.model_id),
        start_payments=False,
        control_config=ControlConfig(mode=ControlMode.DISABLED),
        timeout=30.0,
    )
    return {"job": _job_json(job)}


def lv2v(args: argparse.Namespace) -> dict:
    import asyncio
    import base64
    import io

    import av
    from livepeer_gateway import MediaPublishConfig, StartJobRequest, VideoOutputConfig, start_lv2v

    clip = base64.b64decode(sys.stdin.read())

    async def run() -> dict:
        # start_lv2v is synchronous; called on a running loop it starts the payment sender.
        job = start_lv2v(
            args.orch_url, StartJobRequest(model_id=args.model_id), timeout=30.0, **_signer_kwargs(args)
        )
        started = asyncio.get_running_loop().time()
        sizes: list[str] = []
        received = 0
        output = job.media_output(start_seq=0)

        async def read() -> None:
            nonlocal received
            async for frame in output.frames():
                if hasattr(frame, "width"):
                    received += 1
                    size = f"{frame.width}x{frame.height}"
                    if size not in sizes:
                        sizes.append(size)

        output_ended_after = None

        async def read_until_end() -> None:
            nonlocal output_ended_after
            await read()
            output_ended_after = asyncio.get_running_loop().time() - started

        reader = asyncio.create_task(read_until_end())
        # The events channel's first message (the runner's), and one control message to the runner.
        first_event = None

        async def first() -> None:
            nonlocal first_event
            async for event in job.events(start_seq=0):
                first_event = event
                return

        events = asyncio.create_task(first())
        if args.control:
            await job.control.write(json.loads(args.control))
        media = job.start_media(
            MediaPublishConfig(tracks=[VideoOutputConfig(fps=30.0, keyframe_interval_s=0.5)])
        )
        published = 0
        # The clip once, or again and again for --repeat-seconds (until the session's output ends),
        # each pass's timestamps after the last (the publisher drops frames that go back in time).
        pts_offset = next_offset = 0
        while True:
            with av.open(io.BytesIO(clip)) as container:
                stream = container.streams.video[0]
                fps = float(stream.average_rate or 30)
                step = max(1, round(1 / (fps * float(stream.time_base))))
                for frame in container.decode(stream):
                    if output_ended_after is not None:
                        break
                    if frame.pts is not None:
                        frame.pts += pts_offset
                        next_offset = frame.pts + step
                    await media.write_frame(frame)
                    published += 1
                    await asyncio.sleep(1.0 / fps)
            pts_offset = next_offset
            elapsed = asyncio.get_running_loop().time() - started
            if output_ended_after is not None or elapsed >= args.repeat_seconds:
                break
        # Frames still on the way come back while the session lasts: wait until none came for
        # two seconds (at most --wait-seconds). The segment still open is dropped on close.
        loop = asyncio.get_running_loop()
        deadline = loop.time() + args.wait_seconds
        seen, quiet_since = received, loop.time()
        while received < published and loop.time() < deadline and loop.time() - quiet_since < 2.0:
            await asyncio.sleep(0.1)
            if received != seen:
                seen, quiet_since = received, loop.time()
        try:
            await asyncio.wait_for(events, timeout=5.0)
        except asyncio.TimeoutError:
            pass
        await job.close()
        reader.cancel()
        await asyncio.gather(reader, return_exceptions=True)
        await output.close(wait_callbacks=False)
        return {
            "job": _job_json(job),
            "published": published,
            "received": received,
            "sizes": sizes,
            "event": first_event,
            "output_ended_after": output_ended_after,
        }

    return asyncio.run(run())
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
    lv = sub.add_parser("lv2v", help="start_lv2v, publish the clip on stdin (base64), read the frames back")
    lv.add_argument("--orch-url", required=True, nargs="+", help="https://host:port of orchestrators, tried in turn")
    lv.add_argument("--model-id", required=True, help="the live pipeline, e.g. noop")
    lv.add_argument("--wait-seconds", type=float, default=10.0, help="wait for frames after publishing")
    lv.add_argument("--control", default="", help="a JSON object to write on the control channel")
    lv.add_argument("--signer-url", help="a remote signer's base URL: it signs and pays (on chain)")
    lv.add_argument("--signer-headers", help="headers for the signer, a JSON object")
    lv.add_argument("--repeat-seconds", type=float, default=0.0, help="publish the clip again until then")
    lv.set_defaults(handler=lv2v)
    ls = sub.add_parser("lv2v-start", help="start_lv2v and leave the session open")
    ls.add_argument("--orch-url", required=True, nargs="+", help="https://host:port of orchestrators, tried in turn")
    ls.add_argument("--model-id", required=True, help="the live pipeline, e.g. noop")
    ls.set_defaults(handler=lv2v_start)
    pay = sub.add_parser("payment", help="PaymentSession(signer_url, info).get_payment()")
    pay.add_argument("--url", required=True, help="https://host:port of an orchestrator")
    pay.add_argument("--signer-url", required=True, help="a remote signer's base URL")
    pay.add_argument("--signer-headers", help="headers for the signer, a JSON object")
    pay.add_argument("--type", default="live", choices=["live", "lv2v", "fixed"])
    pay.add_argument("--app", default=None)
    pay.add_argument("--manifest-id", default=None, help="the session's id (a signer needs it after the first payment)")
    pay.add_argument("--count", type=int, default=1)
    pay.set_defaults(handler=payment)
    for command in (d, o, lv, ls, pay):
        command.add_argument(
            "--resolve", action="append", default=[], metavar="HOST:IP", help="look HOST up as IP"
        )
    return p


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        _resolve(args.resolve)
        result = args.handler(args)
    except Exception as e:  # the SDK's errors (LivepeerGatewayError and ValueError) end up here
        out = {"error": _TOKEN.sub(r"\1***", str(e)), "type": type(e).__name__}
        rejections = getattr(e, "rejections", None)
        if rejections:
            out["rejections"] = [{"url": r.url, "reason": _TOKEN.sub(r"\1***", r.reason)} for r in rejections]
        print(json.dumps(out))
        return 1
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
