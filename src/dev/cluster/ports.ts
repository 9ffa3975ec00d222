export { freePort, freePorts } from "../../process/ports.ts";
