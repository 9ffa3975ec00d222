// Bit-level writing for H.264 headers: fixed-width fields, Exp-Golomb codes, RBSP trailing bits,
// and the NAL unit's emulation prevention (00 00 0x -> 00 00 03 0x).

export class BitWriter {
  private readonly bytes: number[] = [];
  private current = 0;
  private used = 0;

  /** n bits of value, most significant first (n <= 32). */
  u(n: number, value: number): this {
    for (let i = n - 1; i >= 0; i--) this.bit((value >>> i) & 1);
    return this;
  }

  /** Unsigned Exp-Golomb, ue(v). */
  ue(value: number): this {
    const coded = value + 1;
    const length = 32 - Math.clz32(coded);
    this.u(length - 1, 0);
    return this.u(length, coded);
  }

  /** Signed Exp-Golomb, se(v). */
  se(value: number): this {
    return this.ue(value <= 0 ? -2 * value : 2 * value - 1);
  }

  bit(b: number): this {
    this.current = (this.current << 1) | b;
    if (++this.used === 8) {
      this.bytes.push(this.current);
      this.current = 0;
      this.used = 0;
    }
    return this;
  }

  get aligned(): boolean {
    return this.used === 0;
  }

  /** Zero bits up to the next byte boundary (pcm_alignment_zero_bit). */
  alignZero(): this {
    while (!this.aligned) this.bit(0);
    return this;
  }

  bytesRaw(data: Uint8Array | number[]): this {
    if (!this.aligned) throw new Error("raw bytes need a byte-aligned writer");
    for (const b of data) this.bytes.push(b);
    return this;
  }

  /** rbsp_trailing_bits(): a 1 then zeros to the byte boundary. */
  trailing(): Uint8Array {
    this.bit(1);
    this.alignZero();
    return Uint8Array.from(this.bytes);
  }
}

/** A NAL unit: header byte, then the RBSP with emulation prevention bytes inserted. */
export function nalUnit(refIdc: number, type: number, rbsp: Uint8Array): Uint8Array {
  const out: number[] = [(refIdc << 5) | type];
  let zeros = 0;
  for (const b of rbsp) {
    if (zeros >= 2 && b <= 3) {
      out.push(3);
      zeros = 0;
    }
    out.push(b);
    zeros = b === 0 ? zeros + 1 : 0;
  }
  return Uint8Array.from(out);
}
