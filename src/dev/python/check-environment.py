"""Proves the Python SDK environment works and says what is in it, as one JSON line on stdout.

Run after every install (and by the tests): the SDK imports, and the packages that ship native
code (grpcio, av, protobuf's upb backend) load and do real work, so a wheel built for another
libc or CPU fails here rather than in the middle of a test.
"""

import json
import sys
from importlib import metadata


def _encode_one_frame(av, codec) -> int:
    """Encodes one small black frame; returns the bytes written (0 would mean a broken encoder)."""
    from fractions import Fraction

    ctx = av.CodecContext.create(codec, "w")
    ctx.width, ctx.height, ctx.pix_fmt = 64, 64, "yuv420p"
    ctx.time_base = Fraction(1, 25)
    frame = av.VideoFrame(64, 64, "yuv420p")
    frame.pts = 0
    packets = list(ctx.encode(frame)) + list(ctx.encode(None))
    written = sum(p.size for p in packets)
    if written == 0:
        raise RuntimeError(f"{codec.name} encoded a frame to 0 bytes")
    return written


def main() -> int:
    if sys.version_info < (3, 12):
        print(json.dumps({"ok": False, "error": f"Python {sys.version.split()[0]} < 3.12"}))
        return 1

    import av
    import grpc
    import livepeer_gateway
    from google.protobuf import json_format
    from google.protobuf.internal import api_implementation
    from livepeer_gateway import lp_rpc_pb2

    # grpcio's C core: TLS credentials and a channel (lazy: nothing is dialled).
    channel = grpc.secure_channel("127.0.0.1:1", grpc.ssl_channel_credentials())
    channel.close()
    # av's FFmpeg libraries: an H.264 encoder (what a gateway publishes) and a decoder.
    encoder = av.codec.Codec("libx264", "w") if "libx264" in av.codecs_available else av.codec.Codec("h264", "w")
    av.codec.Codec("h264", "r")
    encoded = _encode_one_frame(av, encoder)
    # protobuf: the SDK's own wire types round-trip through JSON with their field names.
    info = lp_rpc_pb2.OrchestratorInfo(transcoder="https://127.0.0.1:8935")
    as_dict = json_format.MessageToDict(info, preserving_proto_field_name=True)
    if as_dict.get("transcoder") != "https://127.0.0.1:8935":
        raise RuntimeError(f"protobuf JSON round trip lost the transcoder: {as_dict}")

    wanted = ["livepeer-gateway", "grpcio", "protobuf", "av", "aiohttp"]
    print(
        json.dumps(
            {
                "ok": True,
                "python": sys.version.split()[0],
                "executable": sys.executable,
                "packages": {name: metadata.version(name) for name in wanted},
                "protobufBackend": api_implementation.Type(),
                "h264Encoder": encoder.name,
                "encodedBytes": encoded,
                "sdkExports": len(livepeer_gateway.__all__),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
