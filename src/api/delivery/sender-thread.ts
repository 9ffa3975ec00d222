// The delivery sender's thread (started by threaded-sender.ts): a Sender of its own, with its own
// keep-alive connections, answering batches of requests with batches of results, one message per
// turn of its event loop each way. Nothing here but the HTTP client and the address guard (the
// allowlist and the egress restriction, both given by the engine).
import { parentPort, workerData } from "node:worker_threads";
import { Allowlist } from "./address-policy.ts";
import { Sender, type SendResult } from "./sender.ts";
import {
  answerFields,
  type SendAnswers,
  type SenderThreadData,
  type SendRequest,
} from "./threaded-sender.ts";

const port = parentPort;
if (!port) throw new Error("sender-thread.ts runs as a worker thread (threaded-sender.ts starts it)");
const data = workerData as SenderThreadData;
const sender = new Sender({ ...data.options, allow: new Allowlist(data.allow), egress: data.egress });

let answers: SendAnswers = [];
const flush = () => {
  const batch = answers;
  answers = [];
  port.postMessage(batch);
};
const answer = (n: number, result: SendResult) => {
  if (answers.length === 0) setImmediate(flush);
  answerFields(answers, n, result);
};

port.on("message", (batch: SendRequest[]) => {
  for (const [n, url, headers, body] of batch) {
    void sender.send(url, headers, body).then((result) => answer(n, result));
  }
});
