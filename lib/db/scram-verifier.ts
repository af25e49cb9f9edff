import { createHash, createHmac, pbkdf2Sync, randomBytes } from "node:crypto";

/**
 * A password as PostgreSQL stores it for SCRAM-SHA-256 (RFC 5802/7677), so the password is never
 * sent in a statement the server's log could keep. Our generated passwords are ASCII, which SASLprep
 * leaves unchanged.
 */
export function scramSha256Verifier(password: string, salt: Buffer = randomBytes(16), iterations = 4096): string {
  const salted = pbkdf2Sync(password.normalize("NFKC"), salt, iterations, 32, "sha256");
  const clientKey = createHmac("sha256", salted).update("Client Key").digest();
  const storedKey = createHash("sha256").update(clientKey).digest();
  const serverKey = createHmac("sha256", salted).update("Server Key").digest();
  return `SCRAM-SHA-256$${iterations}:${salt.toString("base64")}$${storedKey.toString("base64")}:${serverKey.toString("base64")}`;
}
