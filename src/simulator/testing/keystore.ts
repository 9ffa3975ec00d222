// Test helper: a node account of its own (a light-scrypt keystore and its password file in `dir`)
// and the flags that give it to a simulated node, so an on-chain node signs what it sends (its
// GetOrchestrator requests) even with no chain behind -ethUrl.
import { Wallet } from "ethers";
import { ensureAccountFiles } from "../../devnet/keystore.ts";

export async function testAccountFlags(dir: string): Promise<string[]> {
  const wallet = Wallet.createRandom();
  const files = await ensureAccountFiles(dir, wallet.privateKey);
  return [
    `-ethKeystorePath=${files.keystoreFile}`,
    `-ethPassword=${files.passwordFile}`,
    `-ethAcctAddr=${wallet.address}`,
  ];
}
