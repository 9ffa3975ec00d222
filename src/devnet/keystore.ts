// Encrypted JSON keystores (Web3 Secret Storage v3, what go-ethereum and the node read) and their
// password files, laid out as the node expects: `<account>/keystore/UTC--<time>--<address>` and
// `<account>/password` with no trailing newline (the node reads the password byte for byte).
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { decryptKeystoreJson, encryptKeystoreJson, getAddress, isKeystoreJson, Wallet } from "ethers";

/**
 * go-ethereum's "light" scrypt parameters (N = 2^12, p = 6): a devnet key is unlocked in
 * milliseconds instead of the standard N = 2^18's second or so. Fine for throwaway dev keys only.
 */
export const LIGHT_SCRYPT = { N: 1 << 12, r: 8, p: 6 } as const;

export interface AccountFiles {
  keystoreFile: string;
  passwordFile: string;
}

/** `UTC--2024-01-02T03-04-05.678Z--<address, lowercase, no 0x>`, go-ethereum's naming. */
export function keystoreFileName(address: string, at: Date): string {
  const time = at.toISOString().replace(/:/g, "-");
  return `UTC--${time}--${getAddress(address).slice(2).toLowerCase()}`;
}

export function generatePassword(): string {
  return randomBytes(18).toString("base64url");
}

export class PasswordFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PasswordFileError";
  }
}

/** The password in `file`, refusing a trailing newline rather than guessing what was meant. */
export function readPasswordFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new PasswordFileError(`cannot read password file ${file}: ${(err as NodeJS.ErrnoException).code}`);
  }
  if (/[\r\n]$/.test(text)) {
    throw new PasswordFileError(
      `password file ${file} ends with a newline; the node reads the password byte for byte, so remove it (e.g. printf '%s' 'the-password' > ${file})`,
    );
  }
  return text;
}

export class KeystoreLockedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "KeystoreLockedError";
  }
}

/** The keystore file in `fileOrDir`: the file itself, or the one keystore in a (keystore) directory. */
export function findKeystoreFile(fileOrDir: string): string {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(fileOrDir);
  } catch {
    throw new KeystoreLockedError(`keystore ${fileOrDir} does not exist`);
  }
  if (stat.isFile()) return fileOrDir;
  const sub = path.join(fileOrDir, "keystore");
  const dir = safeIsDir(sub) ? sub : fileOrDir;
  const keystores = readdirSync(dir)
    .map((f) => path.join(dir, f))
    .filter((f) => statSync(f).isFile() && isKeystoreJson(readFileSync(f, "utf8")));
  if (keystores.length === 1) return keystores[0]!;
  if (keystores.length === 0) throw new KeystoreLockedError(`no keystore file in ${dir}`);
  throw new KeystoreLockedError(
    `${dir} holds ${keystores.length} keystores; name one with --keystore:\n  ${keystores.join("\n  ")}`,
  );
}

function safeIsDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The address a keystore holds, read without decrypting it. */
export function keystoreAddress(file: string): string {
  const json = JSON.parse(readFileSync(file, "utf8")) as { address?: string };
  if (!json.address) throw new KeystoreLockedError(`${file} does not name its address`);
  return getAddress(json.address.startsWith("0x") ? json.address : `0x${json.address}`);
}

export async function unlockKeystore(file: string, password: string): Promise<Wallet> {
  const json = readFileSync(file, "utf8");
  if (!isKeystoreJson(json)) throw new KeystoreLockedError(`${file} is not an encrypted JSON keystore`);
  try {
    return new Wallet((await decryptKeystoreJson(json, password)).privateKey);
  } catch (err) {
    if (/incorrect password/i.test((err as Error).message)) {
      throw new KeystoreLockedError(`cannot unlock keystore ${file}: wrong password`);
    }
    throw new KeystoreLockedError(`cannot unlock keystore ${file}: ${(err as Error).message}`);
  }
}

/**
 * Writes `<accountDir>/keystore/UTC--...` and `<accountDir>/password` (mode 0600) for the key,
 * unless a keystore for the same address already unlocks with the password file there.
 */
export async function ensureAccountFiles(
  accountDir: string,
  privateKey: string,
): Promise<AccountFiles & { reused: boolean }> {
  const wallet = new Wallet(privateKey);
  const keystoreDir = path.join(accountDir, "keystore");
  const passwordFile = path.join(accountDir, "password");
  const existing = await existingAccountFiles(keystoreDir, passwordFile, wallet.address);
  if (existing) return { ...existing, reused: true };
  // The folder is ours: a stale key there would make the node's choice ambiguous.
  rmSync(keystoreDir, { recursive: true, force: true });
  mkdirSync(keystoreDir, { recursive: true, mode: 0o700 });
  const password = generatePassword();
  const json = await encryptKeystoreJson(
    { address: wallet.address, privateKey: wallet.privateKey },
    password,
    { scrypt: LIGHT_SCRYPT },
  );
  const keystoreFile = path.join(keystoreDir, keystoreFileName(wallet.address, new Date()));
  writeFileSync(keystoreFile, json, { mode: 0o600 });
  writeFileSync(passwordFile, password, { mode: 0o600 });
  chmodSync(passwordFile, 0o600);
  return { keystoreFile, passwordFile, reused: false };
}

async function existingAccountFiles(
  keystoreDir: string,
  passwordFile: string,
  address: string,
): Promise<AccountFiles | undefined> {
  try {
    const keystoreFile = findKeystoreFile(keystoreDir);
    if (keystoreAddress(keystoreFile) !== address) return undefined;
    const wallet = await unlockKeystore(keystoreFile, readPasswordFile(passwordFile));
    return wallet.address === address ? { keystoreFile, passwordFile } : undefined;
  } catch {
    return undefined;
  }
}
