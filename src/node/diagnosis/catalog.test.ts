import { describe, expect, it } from "vitest";
import { CATALOG, CATALOG_BY_ID } from "./catalog.ts";
import { LogClassifier } from "./classifier.ts";

// Lines as the real node prints them: glog headers from go-livepeer, FFmpeg/LPMS lines, the loader.
const g = (level: "I" | "W" | "E" | "F", file: string, msg: string) =>
  `${level}1121 10:00:01.123456       1 ${file}] ${msg}`;

const examples: Record<string, { match: string[]; noMatch: string[] }> = {
  // go-livepeer's slog lines (default text handler) and the ai-runner's Python logging.
  LiveRunnerUnhealthy: {
    match: [
      "2026/11/28 01:40:02 INFO static live runner health changed runner_id=orch-live-sd-0 app=live-video-to-video/sd status=unavailable health_url=http://orch-live-sd-0.orch-live-sd.ns.svc.cluster.local:8000/health",
      'time=2026-11-28T01:40:02.000Z level=INFO msg="static live runner health changed" runner_id=r1 app=live-video-to-video/sd status=unavailable health_url=http://r:8000/health',
    ],
    noMatch: [
      "2026/11/28 01:40:07 INFO static live runner health changed runner_id=orch-live-sd-0 app=live-video-to-video/sd status=ready health_url=http://r:8000/health",
    ],
  },
  LiveRunnerHeartbeatStale: {
    match: [
      '2026/11/28 01:41:00 INFO live runner deregistered runner_id=orch-live-sd-1 app=live-video-to-video/sd reason="heartbeat timeout"',
    ],
    noMatch: [
      "2026/11/28 01:41:00 INFO live runner deregistered runner_id=orch-live-sd-1 app=live-video-to-video/sd reason=unregister",
    ],
  },
  LiveRunnerConfigRejected: {
    match: [
      g(
        "F",
        "starter.go:2058",
        "error registering -liveRunnerConfig: runners[0]: price_info.price is required",
      ),
      g("F", "starter.go:2036", "running with -useLiveRunners requires -orchSecret"),
    ],
    noMatch: [
      "2026/11/28 01:40:00 INFO Registered 2 static live runners from /var/run/secrets/livepeer/live-runners/liveRunners.json",
    ],
  },
  LivePipelineLoadTimedOut: {
    match: [
      '2026-11-28 01:43:00 ERROR process_guardian.py:176 Pipeline loading timed out after 180s. state={"state":"LOADING"}',
    ],
    noMatch: [
      "2026-11-28 01:40:00 INFO app.py:127 Started up with pipeline=LiveVideoToVideoPipeline model_id=streamdiffusion",
    ],
  },
  LivePipelineProcessDied: {
    match: ["2026-11-28 01:44:00 ERROR process_guardian.py:157 Process is not alive. Returning ERROR state"],
    noMatch: ["2026-11-28 01:44:00 INFO process.py:98 Pipeline process cleanup complete"],
  },
  OrchestratorCapped: {
    match: [
      g(
        "E",
        "segment_rpc.go:576",
        'manifestID=4d2b nonce=7 seqNo=12 orchSessionID=e0f1 Error submitting segment statusCode=403 orch=https://10.0.0.7:8935 err="OrchestratorCapped"',
      ),
      g(
        "E",
        "segment_rpc.go:616",
        'manifestID=4d2b seqNo=3 Transcode failed for segment orch=https://o:8935 err="orchestratorcapped"',
      ),
    ],
    noMatch: [
      g("E", "segment_rpc.go:616", 'Transcode failed for segment orch=https://o:8935 err="OrchestratorBusy"'),
      g("I", "broadcast.go:400", "orchestrators capped=false"),
    ],
  },
  TicketParamsExpired: {
    match: [
      g(
        "E",
        "orchestrator.go:190",
        "manifestID=4d2b Error receiving ticket sessionID=4d2b recipientRandHash=9f2c senderNonce=3: TicketParams expired",
      ),
      g(
        "I",
        "broadcast.go:1652",
        "manifestID=4d2b Ticket params expired, refreshing for orch=https://o:8935",
      ),
    ],
    noMatch: [g("E", "sender.go:192", "ticketParams expiration block is 0")],
  },
  TranscodeLoopTimedOut: {
    match: [g("I", "lb.go:189", "manifestID=4d2b LB: Transcode loop timed out for key=4d2b_0")],
    noMatch: [g("I", "lb.go:185", "manifestID=4d2b LB: Transcode loop stopped for key=4d2b_0")],
  },
  SegmentLoopTimedOut: {
    match: [g("I", "orchestrator.go:850", "manifestID=4d2b Segment loop timed out; closing ")],
    noMatch: [g("I", "orchestrator.go:860", "manifestID=4d2b Segment loop closed by gateway")],
  },
  LevelLimitExceeded: {
    match: [
      "[libx264 @ 0x55d5c8a3c800] MB rate (2073600) > level limit (983040)",
      "x264 [warning]: frame MB size (8160) > level limit (3600)",
      "MB rate > Level limit",
    ],
    noMatch: [
      "[libx264 @ 0x55d5c8a3c800] MB rate (245760) within level limit (983040)",
      "level limit exceeded",
    ],
  },
  UnableToTranscode: {
    match: [
      g("E", "ot_rpc.go:267", 'manifestID=4d2b seqNo=4 Unable to transcode err="No keyframes in input"'),
    ],
    noMatch: [g("I", "ot_rpc.go:200", "manifestID=4d2b Transcoding taskId=3 url=https://o/seg")],
  },
  UnsupportedPixelFormat: {
    match: [
      g(
        "E",
        "orchestrator.go:755",
        'manifestID=4d2b Error transcoding segName=/tmp/seg.ts err="Unsupported input pixel format"',
      ),
      "ERROR: decoder.c:284] Non 4:2:0 pixel format detected in input : Invalid argument",
    ],
    noMatch: ["ERROR: filter.c:108] Cannot set output pixel format : Invalid argument"],
  },
  EthereumUnreachable: {
    match: [
      "Could not connect to Ethereum node",
      g(
        "E",
        "starter.go:837",
        "Failed to connect to Ethereum client: dial unix /x: connect: no such file or directory",
      ),
      g(
        "E",
        "starter.go:843",
        'failed to get chain ID from remote ethereum node: Post "https://arb1.example/rpc": dial tcp: lookup arb1.example: no such host',
      ),
    ],
    noMatch: [
      g("I", "starter.go:598", "***Livepeer is running on the arbitrum-one-mainnet network: 0xD8E8***"),
    ],
  },
  PortInUse: {
    match: [
      g(
        "E",
        "starter.go:2064",
        'Error starting Transcoder node: err="listen tcp 0.0.0.0:8935: bind: address already in use"',
      ),
      g("E", "webserver.go:25", "listen tcp 127.0.0.1:7935: bind: address already in use"),
    ],
    noMatch: [g("I", "webserver.go:22", "CLI server listening on 127.0.0.1:7935")],
  },
  CudaLibraryMissing: {
    match: [
      "/usr/local/bin/livepeer: error while loading shared libraries: libnppig.so.11: cannot open shared object file: No such file or directory",
      "livepeer: error while loading shared libraries: libcudart.so.12: cannot open shared object file: No such file or directory",
    ],
    noMatch: [
      "livepeer: error while loading shared libraries: libx264.so.164: cannot open shared object file: No such file or directory",
    ],
  },
  NvencSessionLimit: {
    match: [
      "ERROR: encoder.c:318] Unable to open video encoder : Cannot allocate memory",
      g(
        "E",
        "transcoder.go:282",
        "Maximum number of simultaneous NVENC video encoding sessions is restricted by driver",
      ),
      "[h264_nvenc @ 0x7f3a2c0a9e00] OpenEncodeSessionEx failed: out of memory (10): (no details)",
    ],
    noMatch: ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB"],
  },
  CudaErrorUnknown: {
    match: [
      "[h264_cuvid @ 0x5599b1c0] ctx->cvdl->cuvidCreateDecoder(&ctx->cudecoder, &cuinfo) failed -> CUDA_ERROR_UNKNOWN: unknown error",
    ],
    noMatch: [
      "[h264_cuvid @ 0x5599b1c0] cuvidCreateDecoder failed -> CUDA_ERROR_OUT_OF_MEMORY: out of memory",
    ],
  },
  InsufficientGasFunds: {
    match: [
      g("E", "rewardservice.go:81", 'Error calling reward err="insufficient funds for gas * price + value"'),
      g(
        "E",
        "redeemer.go:120",
        "error redeeming ticket err=insufficient funds for gas * price + value: address 0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B have 0 want 21000",
      ),
    ],
    noMatch: [g("E", "broker.go:50", "insufficient funds for transfer")],
  },
  KeystoreNotFound: {
    match: [
      g("E", "starter.go:880", "Error creating Ethereum account manager: ETH account not found"),
      g("F", "starter.go:820", "provided -ethKeystorePath was not found"),
      g("I", "accountmanager.go:51", "No Ethereum account found. Creating a new account"),
    ],
    noMatch: [
      g("I", "accountmanager.go:80", "Using Ethereum account: 0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B"),
    ],
  },
  ServiceAddressMismatch: {
    match: [
      g(
        "E",
        "starter.go:2302",
        "Service address https://203.0.113.10:8935 did not match discovered address https://198.51.100.4:8935; set the correct address in livepeer_cli or use -serviceAddr",
      ),
    ],
    noMatch: [
      g("I", "handlers.go:720", "Storing service URI https://203.0.113.10:8935 in service registry..."),
    ],
  },
  GpuOutOfMemory: {
    match: [
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 23.69 GiB",
      g(
        "E",
        "ai_process.go:1180",
        'Error processing text-to-image request err="RuntimeError: CUDA error: out of memory"',
      ),
    ],
    noMatch: [
      g(
        "I",
        "ai_worker.go:90",
        "Warming text-to-image container with model SG161222/RealVisXL_V4.0_Lightning",
      ),
    ],
  },
  PaymentCreateErrors: {
    match: [
      g(
        "E",
        "segment_rpc.go:501",
        'manifestID=4d2b Could not create payment bytes=88124 err="insufficient sender reserve"',
      ),
    ],
    noMatch: [g("I", "live_payment.go:100", "manifestID=4d2b Sent payment to orch=https://o:8935")],
  },
  GatewayUnfunded: {
    match: [
      g("I", "starter.go:1142", "Broadcaster Deposit: 0 WEI"),
      g("I", "starter.go:1143", "Broadcaster Reserve: 0 ETH"),
    ],
    noMatch: [
      g("I", "starter.go:1142", "Broadcaster Deposit: 0.5 ETH"),
      g("I", "starter.go:1143", "Broadcaster Reserve: 100 WEI"),
    ],
  },
  PriceCapTooLow: {
    match: [
      g(
        "W",
        "selection_algorithm.go:86",
        "Orchestrator 0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B is above max price 300.000, price=1200.000",
      ),
      g(
        "W",
        "selection_algorithm.go:65",
        "No Orchestrators passed max price filter, not using the filter, numAddrs=2",
      ),
    ],
    noMatch: [g("I", "starter.go:1160", "Maximum transcoding price: 300.000 wei per pixel")],
  },
  OrchestratorUnavailableAtStartup: {
    match: [
      g(
        "I",
        "starter.go:2091",
        "Orchestrator not available at https://orch.example.com:8935 (0.0.0.0:8935) via grpc ping check; shutting down",
      ),
    ],
    noMatch: [g("I", "starter.go:2098", "Orchestrator is not performing work")],
  },
  KeystorePasswordWrong: {
    match: [
      g("E", "starter.go:885", "Error unlocking Ethereum account: could not decrypt key with given password"),
    ],
    noMatch: [
      g("I", "accountmanager.go:114", "Unlocked ETH account: 0xAb5801a7D398351b8bE11C439e05C5B3259aeC9B"),
    ],
  },
  ChainIdMismatch: {
    match: [
      g(
        "E",
        "starter.go:850",
        "expecting chainID of 42161, but got 1337. Did you change networks without changing network name or datadir?",
      ),
    ],
    noMatch: [g("I", "starter.go:850", "chainID=42161")],
  },
  HttpIngestDisabled: {
    match: [
      g(
        "W",
        "starter.go:1757",
        "HTTP ingest is disabled because -httpAddr is publicly accessible. To enable, configure -authWebhookUrl or use the -httpIngest flag",
      ),
    ],
    noMatch: [g("I", "mediaserver.go:251", "HTTP Server listening on http://0.0.0.0:8935")],
  },
  NoOrchestrators: {
    match: [g("E", "starter.go:1745", "No orchestrator specified; transcoding will not happen")],
    noMatch: [g("I", "starter.go:1720", "Using orchestrator webhook URL http://operator/orchestrators")],
  },
  OrchestratorWebhookFailing: {
    match: [
      g(
        "E",
        "wh_discovery.go:170",
        'Unable to make webhook request Get "http://operator:8080/x": dial tcp 10.0.0.9:8080: connect: connection refused',
      ),
      g("E", "wh_discovery.go:176", "orchestrator webhook returned HTTP status 401 Unauthorized"),
      g(
        "W",
        "wh_discovery.go:125",
        "Unable to refresh orchestrator webhook; using cached orchestrator list: orchestrator webhook returned HTTP status 500 Internal Server Error",
      ),
    ],
    noMatch: [g("I", "starter.go:1707", "Using orchestrator webhook URL http://operator:8080/x")],
  },
  StreamAuthDenied: {
    match: [
      g(
        "E",
        "mediaserver.go:291",
        'manifestID=cam nonce=12 clientIP=10.0.0.4 Forbidden: Authentication denied for streamID url=http://gw:8935/live/cam/0.ts err="status=403 error=no"',
      ),
    ],
    noMatch: [
      g(
        "I",
        "auth.go:55",
        "Stream authentication for authURL=http://operator/auth url=http://gw/live/cam/0.ts dur=3ms",
      ),
    ],
  },
};

const SPEC_CONDITIONS = [
  "OrchestratorCapped",
  "TicketParamsExpired",
  "TranscodeLoopTimedOut",
  "SegmentLoopTimedOut",
  "LevelLimitExceeded",
  "UnableToTranscode",
  "UnsupportedPixelFormat",
  "EthereumUnreachable",
  "PortInUse",
  "CudaLibraryMissing",
  "NvencSessionLimit",
  "CudaErrorUnknown",
  "InsufficientGasFunds",
  "KeystoreNotFound",
  "ServiceAddressMismatch",
  "GpuOutOfMemory",
  "PaymentCreateErrors",
  "GatewayUnfunded",
  "VideoOnlyOrchestratorRejectsAi",
  "PriceCapTooLow",
];

describe("catalog", () => {
  it("has every condition of the spec's table and silent behaviours", () => {
    for (const id of SPEC_CONDITIONS) expect(CATALOG_BY_ID.has(id), id).toBe(true);
  });

  it("ids are unique CamelCase and every entry explains itself", () => {
    expect(new Set(CATALOG.map((e) => e.id)).size).toBe(CATALOG.length);
    for (const e of CATALOG) {
      expect(e.id).toMatch(/^[A-Z][A-Za-z0-9]+$/);
      expect(e.meaning.length, e.id).toBeGreaterThan(20);
      // The action is the operator's next step, in words: a sentence, not a stub or the meaning again.
      expect(e.action, e.id).toMatch(/^[A-Z]/);
      expect(e.action.trim().split(/\s+/).length, `${e.id}: ${e.action}`).toBeGreaterThanOrEqual(6);
      expect(e.action, e.id).not.toBe(e.meaning);
      // An error always has something to do; a normal one is not alarmed on, and says so.
      if (e.severity === "error") expect(e.action, e.id).not.toMatch(/^None\b/);
      if (e.severity === "normal") expect(e.action, e.id).toMatch(/^None\b/);
      expect(e.recognizedBy.length, e.id).toBeGreaterThan(0);
    }
  });

  it("the loop timeouts are normal, not alarms", () => {
    expect(CATALOG_BY_ID.get("TranscodeLoopTimedOut")?.severity).toBe("normal");
    expect(CATALOG_BY_ID.get("SegmentLoopTimedOut")?.severity).toBe("normal");
  });

  it("every log-recognised entry has example lines here", () => {
    const logIds = CATALOG.filter((e) => e.recognizedBy.some((r) => r.kind === "log")).map((e) => e.id);
    expect(Object.keys(examples).sort()).toEqual(logIds.sort());
  });

  it("every log-recognised entry says when its finding clears; no other entry needs to", () => {
    for (const e of CATALOG) {
      const fromLog = e.recognizedBy.some((r) => r.kind === "log");
      if (!fromLog) {
        expect(e.clears, e.id).toBeUndefined();
        continue;
      }
      expect(e.clears, e.id).toBeDefined();
      if (e.clears?.after === "quiet") expect(e.clears.minutes, e.id).toBeGreaterThan(0);
    }
    // A fatal start-up line holds until a new container serves; a passing one fades.
    expect(CATALOG_BY_ID.get("KeystorePasswordWrong")?.clears).toEqual({ after: "restart" });
    expect(CATALOG_BY_ID.get("PortInUse")?.clears).toEqual({ after: "restart" });
    expect(CATALOG_BY_ID.get("OrchestratorCapped")?.clears?.after).toBe("quiet");
  });

  it("the keystore password's trailing newline is an error found in the configuration", () => {
    const e = CATALOG_BY_ID.get("KeystorePasswordTrailingNewline");
    expect(e?.severity).toBe("error");
    expect(e?.recognizedBy.every((r) => r.kind === "config")).toBe(true);
    expect(e?.action).toMatch(/printf '%s'.*kubectl create secret/);
  });

  it("non-log entries say how they are recognised", () => {
    for (const id of ["VideoOnlyOrchestratorRejectsAi", "GpuMemoryHigh"]) {
      expect(CATALOG_BY_ID.get(id)?.recognizedBy.every((r) => r.kind === "endpoint")).toBe(true);
    }
    expect(CATALOG_BY_ID.get("PaymentCreateErrors")?.recognizedBy.some((r) => r.kind === "metric")).toBe(
      true,
    );
    expect(CATALOG_BY_ID.get("GatewayUnfunded")?.recognizedBy.some((r) => r.kind === "chain")).toBe(true);
  });
});

describe.each(Object.entries(examples))("%s", (id, { match, noMatch }) => {
  it.each(match)("recognises %s", (line) => {
    expect(new LogClassifier().push(line)).toContain(id);
  });
  it.each(noMatch)("does not take %s for it", (line) => {
    expect(new LogClassifier().push(line)).not.toContain(id);
  });
});
