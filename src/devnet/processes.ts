// The dev chain runs as a child process recorded by pid: the shared pid and port helpers.
export { isAlive, sleep, stopPid } from "../process/pids.ts";
export { freePort, isPortListening } from "../process/ports.ts";
