// The AI runner's log lines as the real one prints them: Python logging with the runner's format
// (runner/live/log.py config_logging) and uvicorn's own lines.

export type PyLevel = "INFO" | "WARNING" | "ERROR";

function timestamp(now = new Date()): string {
  return now.toISOString().slice(0, 19).replace("T", " ");
}

/** `timestamp=... level=ERROR location=file.py:line:func gateway_request_id= ... message=...` */
export function runnerLogLine(level: PyLevel, location: string, message: string, now?: Date): string {
  return `timestamp=${timestamp(now)} level=${level} location=${location} gateway_request_id= manifest_id= stream_id= message=${message}`;
}

/** uvicorn's lines: a level, a colon and padding to 9 columns ("INFO:     Uvicorn running on ..."). */
export function uvicornLine(level: PyLevel, message: string): string {
  return `${`${level}:`.padEnd(9)} ${message}`;
}

/**
 * What PyTorch raises when an allocation does not fit (torch.OutOfMemoryError's text), as the
 * runner logs it from the text-to-image route: "TextToImage pipeline error: CUDA out of memory. ..."
 */
export function cudaOutOfMemoryText(gpu: { index: number; totalBytes: number; freeBytes: number }): string {
  const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
  const allocated = Math.max(0, gpu.totalBytes - gpu.freeBytes - 1024 ** 3);
  return (
    `CUDA out of memory. Tried to allocate 2.00 GiB. GPU ${gpu.index} has a total capacity of ${gib(gpu.totalBytes)} of which ${gib(gpu.freeBytes)} is free. ` +
    `Of the allocated memory ${gib(allocated)} is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but unallocated. ` +
    "If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  " +
    "See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
  );
}
